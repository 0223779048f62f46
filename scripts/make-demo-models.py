#!/usr/bin/python3
"""Writes the small models `make run` compiles and checks end to end:

  small_cnn.onnx          1x3x32x32 -> 1x10: conv+BN+relu, a residual block, max pool,
                          a 1x1 conv, global average pool, a linear classifier
  tiny_transformer.onnx   1x16x64 -> 1x16x64: one encoder layer in PyTorch's export
                          form (QKV projection, 4 heads, scaled softmax attention,
                          Erf-form GELU MLP, residuals, LayerNormalization, opset 17)

  call_chain.onnx         1x256 -> 1x256: 200 small elementwise nodes in a chain (Add of
                          a constant, then Relu, alternating), for the cost of one
                          partition call: compiled with --no-fusion it is 200 kernels

with NAME.input.npy beside each. Random weights (seeded), nothing downloaded; needs
Debian's python3-onnx and python3-numpy:

    /usr/bin/python3 scripts/make-demo-models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)


def weight(*shape, scale=0.2):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


class Model:
    def __init__(self):
        self.nodes, self.inits = [], []

    def const(self, name, value):
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(self, op, inputs, output, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output

    def save(self, path, name, inputs, outputs, opset):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        onnx.checker.check_model(model)
        onnx.save(model, path)


def conv_bn(m, x, cin, cout, k, name, relu=True):
    w = m.const(name + ".w", weight(cout, cin, k, k, scale=(2.0 / (cin * k * k)) ** 0.5))
    y = m.node("Conv", [x, w], name + ".conv", kernel_shape=[k, k], pads=[k // 2] * 4)
    bn = [m.const(f"{name}.{p}", v) for p, v in
          (("scale", 1 + weight(cout, scale=0.1)), ("bias", weight(cout, scale=0.1)),
           ("mean", weight(cout, scale=0.1)), ("var", 1 + np.abs(weight(cout, scale=0.1))))]
    y = m.node("BatchNormalization", [y] + bn, name + ".bn")
    return m.node("Relu", [y], name + ".relu") if relu else y


def small_cnn(path):
    m = Model()
    x = conv_bn(m, "input", 3, 16, 3, "stem")
    y = conv_bn(m, x, 16, 16, 3, "block.a")
    y = conv_bn(m, y, 16, 16, 3, "block.b", relu=False)
    y = m.node("Relu", [m.node("Add", [y, x], "block.add")], "block.relu")
    y = m.node("MaxPool", [y], "pool", kernel_shape=[2, 2], strides=[2, 2])
    y = conv_bn(m, y, 16, 32, 1, "expand")
    y = m.node("Flatten", [m.node("GlobalAveragePool", [y], "gap")], "flat", axis=1)
    m.node("Gemm", [y, m.const("fc.w", weight(10, 32)), m.const("fc.b", weight(10))], "output", transB=1)
    m.save(path, "small_cnn", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])],
           [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 10])], 13)
    return (1, 3, 32, 32)


def tiny_transformer(path):
    s, d, heads, ff = 16, 64, 4, 256
    hd = d // heads
    m = Model()
    qkv = m.node("Add", [m.node("MatMul", ["input", m.const("qkv.w", weight(d, 3 * d))], "qkv.mm"),
                         m.const("qkv.b", weight(3 * d))], "qkv")
    parts = []
    for i, t in enumerate("qkv"):
        part = m.node("Slice", [qkv, m.const(f"{t}.start", [i * d]), m.const(f"{t}.end", [(i + 1) * d]),
                                m.const(f"{t}.axis", [2])], t)
        heads_t = m.node("Reshape", [part, m.const(f"{t}.shape", [1, s, heads, hd])], t + ".heads")
        perm = [0, 2, 3, 1] if t == "k" else [0, 2, 1, 3]
        parts.append(m.node("Transpose", [heads_t], t + ".t", perm=perm))
    q, k, v = parts
    scores = m.node("Div", [m.node("MatMul", [q, k], "scores.mm"), m.const("sqrt_hd", np.float32(hd ** 0.5))],
                    "scores")
    probs = m.node("Softmax", [scores], "probs", axis=-1)
    ctx = m.node("Transpose", [m.node("MatMul", [probs, v], "ctx.mm")], "ctx.t", perm=[0, 2, 1, 3])
    ctx = m.node("Reshape", [ctx, m.const("merge.shape", [1, s, d])], "ctx")
    attn = m.node("Add", [m.node("MatMul", [ctx, m.const("out.w", weight(d, d))], "attn.mm"),
                          m.const("out.b", weight(d))], "attn")
    x = m.node("LayerNormalization", [m.node("Add", ["input", attn], "res1"), m.const("ln1.g", 1 + weight(d)),
                                      m.const("ln1.b", weight(d))], "ln1", axis=-1)
    h = m.node("Add", [m.node("MatMul", [x, m.const("ff1.w", weight(d, ff))], "ff1.mm"),
                       m.const("ff1.b", weight(ff))], "ff1")
    # GELU as PyTorch exports it: x * 0.5 * (1 + erf(x / sqrt 2))
    e = m.node("Erf", [m.node("Div", [h, m.const("sqrt2", np.float32(2 ** 0.5))], "gelu.div")], "gelu.erf")
    g = m.node("Mul", [m.node("Mul", [h, m.node("Add", [e, m.const("one", np.float32(1))], "gelu.add")],
                              "gelu.mul"), m.const("half", np.float32(0.5))], "gelu")
    y = m.node("Add", [m.node("MatMul", [g, m.const("ff2.w", weight(ff, d))], "ff2.mm"),
                       m.const("ff2.b", weight(d))], "ff2")
    m.node("LayerNormalization", [m.node("Add", [x, y], "res2"), m.const("ln2.g", 1 + weight(d)),
                                  m.const("ln2.b", weight(d))], "output", axis=-1)
    m.save(path, "tiny_transformer", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, s, d])],
           [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, s, d])], 17)
    return (1, s, d)


def call_chain(path, nodes=200, width=256):
    m = Model()
    x = "input"
    for k in range(nodes):
        if k % 2 == 0:
            x = m.node("Add", [x, m.const(f"c{k}", weight(width, scale=0.01))], f"add{k}")
        else:
            x = m.node("Relu", [x], f"relu{k}" if k + 1 < nodes else "output")
    m.save(path, "call_chain", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, width])],
           [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, width])], 13)
    return (1, width)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, make in (("small_cnn", small_cnn), ("tiny_transformer", tiny_transformer),
                       ("call_chain", call_chain)):
        shape = make(os.path.join(out, name + ".onnx"))
        np.save(os.path.join(out, name + ".input.npy"), rng.standard_normal(shape).astype(np.float32))
        print(f"{out}/{name}.onnx")


if __name__ == "__main__":
    main()
