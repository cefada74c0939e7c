/* assets.h: the dashboard's files, embedded at build time by ui/embed.c (ui/meson.build). */
#pragma once

#include <stddef.h>

struct ui_asset {
        const char *path;               /* URL path: "/ui/app.js" */
        const char *content_type;
        const unsigned char *data;
        size_t len;
        const char *etag;               /* strong: a hash of the bytes, quoted */
};

extern const struct ui_asset ui_assets[];
extern const size_t ui_assets_count;
