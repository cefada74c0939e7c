/* ui.c: GET / and /ui/{file}: the dashboard's files, embedded in the binary (ui/assets.h). They
 * change only with the binary: a strong ETag per file, revalidated on each load (no-cache), and
 * a Content-Security-Policy that allows nothing but the daemon's own scripts and styles, so a
 * string that slipped into the page as HTML still could not run. */
#include <string.h>

#include "api/handlers.h"
#include "basic/utf8.h"
#include "ui/assets.h"

static const char csp[] = "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

static const struct ui_asset *asset_find(const char *url) {
        const char *path = strcmp(url, "/") == 0 ? "/ui/index.html" : url;
        for (size_t i = 0; i < ui_assets_count; i++)
                if (strcmp(ui_assets[i].path, path) == 0)
                        return &ui_assets[i];
        return NULL;
}

enum MHD_Result api_get_ui(struct api_request *req) {
        const struct ui_asset *a = asset_find(req->url);
        if (!a)
                return api_reply_errorf(req, 404, "not_found", NULL, "no such file: %.*s", UTF8_PREFIX(req->url, 64));
        bool fresh = api_if_none_match(req, a->etag);
        struct MHD_Response *resp = fresh ? MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT)
                                          : MHD_create_response_from_buffer(a->len, (void *) a->data, MHD_RESPMEM_PERSISTENT);
        if (!resp)
                return MHD_NO;
        if (!fresh)
                MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, a->content_type);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, a->etag);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
        MHD_add_response_header(resp, "Content-Security-Policy", csp);
        MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
        MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
        enum MHD_Result ret = MHD_queue_response(req->connection, fresh ? 304 : 200, resp);
        MHD_destroy_response(resp);
        return ret;
}
