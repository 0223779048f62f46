"""The `tessera` Python module: small ONNX models (written here with onnx's helpers)
compiled in this process and ahead of time, called on numpy arrays and compared with
numpy's own computation; bad models and inputs raise exceptions naming the culprit."""
import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import tessera

rng = np.random.default_rng(20261127)
W1 = rng.standard_normal((24, 40)).astype(np.float32) * 0.3
B1 = rng.standard_normal(40).astype(np.float32)
W2 = rng.standard_normal((40, 10)).astype(np.float32) * 0.3


def write_mlp(path):
    """features[3x24] -> MatMul, Add, Relu, MatMul -> logits[3x10]; and a second output."""
    nodes = [
        helper.make_node("MatMul", ["features", "w1"], ["h0"]),
        helper.make_node("Add", ["h0", "b1"], ["h1"]),
        helper.make_node("Relu", ["h1"], ["hidden"]),
        helper.make_node("MatMul", ["hidden", "w2"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("features", TensorProto.FLOAT, [3, 24])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [3, 10]),
         helper.make_tensor_value_info("hidden", TensorProto.FLOAT, [3, 40])],
        [numpy_helper.from_array(W1, "w1"), numpy_helper.from_array(B1, "b1"), numpy_helper.from_array(W2, "w2")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, path)
    return path


def reference(x):
    hidden = np.maximum(x @ W1 + B1, 0)
    return hidden @ W2, hidden


def close(got, want):
    return np.max(np.abs(got - want)) <= 1e-4 * max(1.0, np.max(np.abs(want)))


@pytest.fixture(scope="module")
def mlp(tmp_path_factory):
    return write_mlp(str(tmp_path_factory.mktemp("models") / "mlp.onnx"))


@pytest.fixture(scope="module")
def compiled(mlp, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("out") / "mlp")
    return tessera.compile(mlp, out_dir=out, threads=2), out


def test_jit_model_matches_numpy(mlp):
    m = tessera.compile(mlp, threads=2)
    assert m.threads == 2
    assert [t["name"] for t in m.inputs] == ["features"]
    assert m.inputs[0]["shape"] == (3, 24) and m.inputs[0]["dtype"] == "float32"
    assert [t["name"] for t in m.outputs] == ["logits", "hidden"]
    assert len(m.plan) >= 1 and all("ops" in p and "class" in p for p in m.plan)
    x = rng.standard_normal((3, 24)).astype(np.float32)
    logits, hidden = m(x)
    want_logits, want_hidden = reference(x)
    assert logits.shape == (3, 10) and logits.dtype == np.float32
    assert close(logits, want_logits) and close(hidden, want_hidden)
    # By name, and on more threads than the machine has cores.
    logits, _ = tessera.compile(mlp, threads=3 * os.cpu_count())(features=x)
    assert close(logits, want_logits)


def test_library_compiled_ahead_of_time_and_loaded(compiled):
    m, out = compiled
    assert os.path.exists(os.path.join(out, "libmlp.so"))
    x = rng.standard_normal((3, 24)).astype(np.float32)
    want_logits, want_hidden = reference(x)
    for model in (m, tessera.load(out), tessera.load(out, threads=1)):
        logits, hidden = model(x)
        assert close(logits, want_logits) and close(hidden, want_hidden)
    assert tessera.load(out, threads=1).threads == 1
    assert "library mlp" in repr(m)
    # A view that is not contiguous is taken (copied to the model's layout).
    wide = rng.standard_normal((3, 48)).astype(np.float32)
    logits, _ = m(wide[:, ::2])
    assert close(logits, reference(np.ascontiguousarray(wide[:, ::2]))[0])


def test_bad_inputs_raise_naming_the_input(compiled):
    m, _ = compiled
    x = np.zeros((3, 24), np.float32)
    with pytest.raises(TypeError, match="features.*float64"):
        m(x.astype(np.float64))
    with pytest.raises(ValueError, match="features.*shape 3x25.*3x24"):
        m(np.zeros((3, 25), np.float32))
    with pytest.raises(ValueError, match="takes 1 input"):
        m(x, x)
    with pytest.raises(ValueError, match="no input 'image'"):
        m(image=x)
    with pytest.raises(TypeError, match="features.*list"):
        m([[0.0] * 24] * 3)


def test_an_input_holding_nan_is_the_callers_to_give(compiled):
    m, _ = compiled
    x = np.zeros((3, 24), np.float32)
    x[0, 0] = np.nan
    logits, hidden = m(x)  # no error: whatever NaN gives in the model is its answer
    assert logits.shape == (3, 10) and not np.isnan(logits[1:]).any()


def test_bad_models_and_folders_raise_with_the_file(tmp_path):
    with pytest.raises(RuntimeError, match="missing.onnx: no such file"):
        tessera.compile(str(tmp_path / "missing.onnx"))
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(RuntimeError, match="junk.onnx"):
        tessera.compile(str(junk))
    with pytest.raises(RuntimeError, match="plan.json"):
        tessera.load(str(tmp_path))
    with pytest.raises(ValueError, match="threads"):
        tessera.compile(str(junk), threads=-1)


def write_lookup(path, table):
    """ids[2x5] int64 -> Gather from `table` -> Relu -> y; ArgMax over the rows' features -> top (int64)."""
    nodes = [
        helper.make_node("Gather", ["table", "ids"], ["rows"], name="lookup"),
        helper.make_node("Relu", ["rows"], ["y"]),
        helper.make_node("ArgMax", ["y"], ["top"], axis=2, keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, "lookup", [helper.make_tensor_value_info("ids", TensorProto.INT64, [2, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5, 4]),
         helper.make_tensor_value_info("top", TensorProto.INT64, [2, 5])],
        [numpy_helper.from_array(table, "table")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


@pytest.mark.parametrize("ahead_of_time", [False, True])
def test_token_ids_in_and_indices_out_are_integer_arrays(ahead_of_time, tmp_path):
    table = rng.standard_normal((10, 4)).astype(np.float32)
    path = write_lookup(str(tmp_path / "lookup.onnx"), table)
    m = tessera.compile(path, threads=2, out_dir=str(tmp_path / "out") if ahead_of_time else "")
    assert [t["dtype"] for t in m.inputs] == ["int64"]
    assert [t["dtype"] for t in m.outputs] == ["float32", "int64"]
    ids = np.array([[0, 9, -1, 3, -10], [4, 4, 7, 2, 1]])
    for given in (ids, ids.astype(np.int32)):  # any integer array
        y, top = m(given)
        want = np.maximum(table[ids], 0)
        assert top.dtype == np.int64 and close(y, want)
        assert (top == np.argmax(want, axis=2)).all()
    with pytest.raises(TypeError, match="ids.*float32.*integers"):
        m(ids.astype(np.float32))
    with pytest.raises(RuntimeError, match="Gather 'lookup': index 10 is outside"):
        m(np.full((2, 5), 10))


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo models `make run` uses, written by scripts/make-demo-models.py."""
    out = str(tmp_path_factory.mktemp("demo"))
    script = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "make-demo-models.py")
    subprocess.run([sys.executable, script, out], check=True, stdout=subprocess.DEVNULL)
    return out


@pytest.mark.parametrize("name", ["small_cnn", "tiny_transformer"])
def test_demo_models_round_trip_against_the_reference_evaluator(name, demo, tmp_path):
    path = os.path.join(demo, name + ".onnx")
    x = np.load(os.path.join(demo, name + ".input.npy"))
    want = tessera.compile(path, reference=True)(x)
    assert "reference evaluator" in repr(tessera.compile(path, reference=True))
    for m in (tessera.compile(path, threads=2), tessera.compile(path, out_dir=str(tmp_path / name))):
        got = m(x)
        assert got.shape == want.shape and close(got, want), (name, repr(m))
