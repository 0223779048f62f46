#include "image_layout.h"

namespace tessera::graph {

ops::OpConfig &LayoutImage::add_layout(ops::OpConfig &config) const {
    if (layout == Layout::nhwc) return config.with("layout", "nhwc");
    if (layout == Layout::blocked) return config.with("layout", "nchwc").with("block", block);
    return config;
}

LayoutImage layout_image(const LowerContext &ctx, const std::string &what) {
    LayoutImage im;
    im.layout = node_layout(ctx.node());
    im.block = layout_block(ctx.node());
    const Shape &x = ctx.in_shape(0);
    if (x.size() != (im.layout == Layout::blocked ? 5u : 4u)) {
        ctx.fail("only " + what + " (4-D inputs) are compiled; this input is " + shape_string(x));
    }
    im.n = x[0];
    if (im.layout == Layout::nhwc) {
        im.h = x[1], im.w = x[2], im.c = x[3];
    } else {
        im.c = im.layout == Layout::blocked ? x[1] * im.block : x[1];
        im.h = x[2], im.w = x[3];
    }
    return im;
}

}  // namespace tessera::graph
