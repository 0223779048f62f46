#include "onednn_common.h"

namespace tessera::onednn {

dnnl::engine &cpu_engine() {
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

dnnl::stream &cpu_stream() {
    static dnnl::stream stream(cpu_engine());
    return stream;
}

dnnl::memory::dims to_dims(const ops::Shape &shape) {
    return dnnl::memory::dims(shape.begin(), shape.end());
}

dnnl::memory::dims row_major_strides(const dnnl::memory::dims &dims) {
    dnnl::memory::dims strides(dims.size(), 1);
    for (int i = int(dims.size()) - 2; i >= 0; i--) strides[i] = strides[i + 1] * dims[i + 1];
    return strides;
}

dnnl::memory::desc plain_desc(const dnnl::memory::dims &dims) {
    return strided_desc(dims, row_major_strides(dims));
}

dnnl::memory::desc strided_desc(const dnnl::memory::dims &dims, const dnnl::memory::dims &strides) {
    if (dims.size() > DNNL_MAX_NDIMS) {
        throw Unsupported("rank " + std::to_string(dims.size()) + " exceeds oneDNN's " +
                          std::to_string(DNNL_MAX_NDIMS));
    }
    return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

dnnl::memory user_memory(const dnnl::memory::desc &md) {
    return dnnl::memory(md, cpu_engine(), DNNL_MEMORY_NONE);
}

bool is_optimised_impl(const std::string &impl) {
    // simple_layer_normalization runs JIT statistics and data kernels
    // (jit_stat_and_data_kernel_t) on AVX2 and later: its name hides them.
    for (const char *jit : {"jit", "brg", "brdgmm", "simple_layer_normalization"}) {
        if (impl.find(jit) != std::string::npos) return true;
    }
    return false;
}

int64_t channel_block() {
    const unsigned avx512_core = unsigned(dnnl::cpu_isa::avx512_core);
    return (unsigned(dnnl::get_effective_cpu_isa()) & avx512_core) == avx512_core ? 16 : 8;
}

dnnl::memory::format_tag blocked_channel_tag(int ndims) {
    using tag = dnnl::memory::format_tag;
    const bool wide = channel_block() == 16;
    switch (ndims) {
    case 3: return wide ? tag::nCw16c : tag::nCw8c;
    case 4: return wide ? tag::nChw16c : tag::nChw8c;
    case 5: return wide ? tag::nCdhw16c : tag::nCdhw8c;
    default: throw std::invalid_argument("blocked_channel_tag: rank " + std::to_string(ndims) + " has no blocked layout");
    }
}

dnnl::memory::format_tag image_tag(bool nhwc, bool blocked, int64_t block) {
    using tag = dnnl::memory::format_tag;
    if (blocked) return block == 16 ? tag::nChw16c : tag::nChw8c;
    return nhwc ? tag::nhwc : tag::nchw;
}

void point(dnnl::memory &mem, const Tensor &t) {
    // oneDNN takes non-const handles; inputs are only read.
    mem.set_data_handle(const_cast<float *>(t.data.data()));
}

LayoutBridge::LayoutBridge(const dnnl::memory::desc &user, const dnnl::memory::desc &primitive,
                           bool into_primitive)
    : user_(user_memory(user)), into_primitive_(into_primitive) {
    if (user == primitive) {
        primitive_ = user_;
        return;
    }
    primitive_ = dnnl::memory(primitive, cpu_engine());
    dnnl::reorder::primitive_desc pd = into_primitive ? dnnl::reorder::primitive_desc(user_, primitive_)
                                                      : dnnl::reorder::primitive_desc(primitive_, user_);
    impl_ = pd.impl_info_str();
    reorder_ = std::make_unique<dnnl::reorder>(pd);
}

dnnl::memory &LayoutBridge::bind(const Tensor &t) {
    point(user_, t);
    return primitive_;
}

void LayoutBridge::convert() {
    if (!reorder_) return;
    if (into_primitive_) {
        reorder_->execute(cpu_stream(), user_, primitive_);
    } else {
        reorder_->execute(cpu_stream(), primitive_, user_);
    }
}

}  // namespace tessera::onednn
