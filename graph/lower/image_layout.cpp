#include "image_layout.h"

namespace tessera::graph {

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
        im.keys = " layout=nhwc";
    } else {
        im.c = im.layout == Layout::blocked ? x[1] * im.block : x[1];
        im.h = x[2], im.w = x[3];
        if (im.layout == Layout::blocked) im.keys = " layout=nchwc block=" + std::to_string(im.block);
    }
    return im;
}

}  // namespace tessera::graph
