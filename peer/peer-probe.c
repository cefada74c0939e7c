/* peer-probe.c: GET /v1/health of several peers at once (peer-probe.h). */
#include "peer/peer-probe.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "basic/utf8.h"
#include "peer/peer-http.h"

#define PROBE_PATH "/v1/health"

static void set_error(struct peer_probe *p, const char *why) {
        p->answers = false;
        snprintf(p->error, sizeof p->error, "%.*s", UTF8_PREFIX(why, PEER_PROBE_ERROR_MAX));
}

/* A version is shown as it came only when it is short printable ASCII and not the token. */
static void take_version(struct peer_probe *p, const char *v, const char *token) {
        size_t n = v ? strlen(v) : 0;
        if (n == 0 || n > PEER_VERSION_MAX || (token && *token && strstr(v, token)))
                return;
        for (size_t i = 0; i < n; i++)
                if (v[i] < 0x20 || v[i] > 0x7e)
                        return;
        memcpy(p->version, v, n + 1);
}

/* The answer to a finished transfer. A refusal's message is the peer's own text: one that
 * holds the token (sent to it in the header) is replaced by the status alone. */
static void read_answer(struct peer_http *h, int curl_code, struct peer_probe *p) {
        struct error err = { 0 };
        const char *token = h->config->token;
        if (peer_http_done(h, curl_code, "GET", PROBE_PATH, &err) < 0 ||
            peer_http_expect(h, "GET", PROBE_PATH, 200, &err) < 0) {
                if (token && *token && strstr(err.message, token))
                        snprintf(err.message, sizeof err.message, "peer %s: GET %s: HTTP %ld (its message withheld)",
                                 h->host, PROBE_PATH, h->status);
                set_error(p, err.message);
                return;
        }
        _cleanup_(json_freep) cJSON *j = cJSON_Parse(h->body ? h->body : "");
        const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "status"));
        if (!status || strcmp(status, "ok") != 0) {
                snprintf(err.message, sizeof err.message, "peer %s: GET %s: no \"status\":\"ok\" in its answer", h->host,
                         PROBE_PATH);
                set_error(p, err.message);
                return;
        }
        p->answers = true;
        take_version(p, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "version")), token);
}

/* Each host's transfer made and added to m; a host whose transfer cannot be made is answered
 * at once (hs[i] stays NULL). */
static void add_transfers(CURLM *m, const struct peer_config *c, const char *const *hosts, size_t n,
                          struct peer_http **hs, struct peer_probe *ret) {
        for (size_t i = 0; i < n; i++) {
                struct error err = { 0 };
                struct peer_http *h = NULL;
                if (peer_http_new(c, hosts[i], &h, &err) < 0 ||
                    peer_http_prepare(h, "GET", PROBE_PATH, NULL, PEER_PROBE_TIMEOUT_MS, &err) < 0) {
                        peer_http_free(h);
                        set_error(&ret[i], err.message[0] ? err.message : "cannot make the request");
                        continue;
                }
                curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT_MS, PEER_PROBE_CONNECT_MS);
                curl_easy_setopt(h->curl, CURLOPT_PRIVATE, (void *) (uintptr_t) i);
                if (curl_multi_add_handle(m, h->curl) != CURLM_OK) {
                        peer_http_free(h);
                        set_error(&ret[i], "cannot start the request");
                        continue;
                }
                hs[i] = h;
        }
}

/* Runs the transfers until all finished; each one's own timeout ends it. */
static void run_transfers(CURLM *m, struct peer_http **hs, struct peer_probe *ret) {
        int running = 1;
        while (running > 0) {
                if (curl_multi_perform(m, &running) != CURLM_OK)
                        break;
                CURLMsg *msg;
                int left;
                while ((msg = curl_multi_info_read(m, &left))) {
                        if (msg->msg != CURLMSG_DONE)
                                continue;
                        void *priv = NULL;
                        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &priv);
                        size_t i = (size_t) (uintptr_t) priv;
                        read_answer(hs[i], msg->data.result, &ret[i]);
                }
                if (running > 0 && curl_multi_poll(m, NULL, 0, 200, NULL) != CURLM_OK)
                        break;
        }
}

int peer_probe(const struct peer_config *c, const char *const *hosts, size_t n, struct peer_probe *ret) {
        for (size_t i = 0; i < n; i++)
                ret[i] = (struct peer_probe){ .answers = false };
        if (n == 0)
                return 0;
        struct peer_http **hs = calloc(n, sizeof *hs);
        CURLM *m = curl_multi_init();
        if (!hs || !m) {
                free(hs);
                if (m)
                        curl_multi_cleanup(m);
                for (size_t i = 0; i < n; i++)
                        set_error(&ret[i], "out of memory");
                return -ENOMEM;
        }
        add_transfers(m, c, hosts, n, hs, ret);
        run_transfers(m, hs, ret);
        for (size_t i = 0; i < n; i++) {
                if (!hs[i])
                        continue;
                /* One the loop did not see finish (the multi handle failed) has no answer. */
                if (!ret[i].answers && !ret[i].error[0])
                        set_error(&ret[i], "the request did not finish");
                curl_multi_remove_handle(m, hs[i]->curl);
                peer_http_free(hs[i]);
        }
        free(hs);
        curl_multi_cleanup(m);
        return 0;
}
