/* definition-values.c: the value syntaxes of a definition (memory sizes, http:// URLs, host:port,
 * log regexes, commands, variable names, the external timeline path, cpulists), each checked
 * strictly enough that the daemon can use the value without a second look. */
#include <arpa/inet.h>
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "basic/hostport.h"
#include "definition/definition-internal.h"

#define CPULIST_TEXT_MAX 1024

/* Digits with an optional binary-unit suffix; -EINVAL or -ERANGE. */
static int parse_size(const char *s, const char *suffixes, uint64_t *ret) {
        uint64_t v = 0;
        size_t i = 0;

        if (!isdigit((unsigned char) s[0]))
                return -EINVAL;
        for (; isdigit((unsigned char) s[i]); i++)
                if (__builtin_mul_overflow(v, 10, &v) ||
                    __builtin_add_overflow(v, (uint64_t) (s[i] - '0'), &v))
                        return -ERANGE;
        if (s[i] != '\0') {
                const char *u = strchr(suffixes, s[i]);
                if (!u || s[i + 1] != '\0')
                        return -EINVAL;
                /* suffixes list K M G T in one case or both cases, in order */
                unsigned shift = 10 * (1 + (unsigned) ((u - suffixes) % 4));
                if (v > (UINT64_MAX >> shift))
                        return -ERANGE;
                v <<= shift;
        }
        *ret = v;
        return 0;
}

int def_parse_jvm_size(const char *s, uint64_t *ret) {
        return parse_size(s, "kmgtKMGT", ret);
}

int def_parse_memory(const cJSON *v, const char *path, const struct host_limits *host,
                     uint64_t *ret, struct error *err) {
        uint64_t bytes;
        char seen[96];
        int r;

        if (cJSON_IsNumber(v)) {
                r = def_get_uint(v, path, DEFINITION_MEMORY_MIN, DEFINITION_MEMORY_MAX, &bytes, err);
                if (r < 0)
                        return r;
                snprintf(seen, sizeof seen, "%llu", (unsigned long long) bytes);
        } else if (cJSON_IsString(v) && v->valuestring) {
                def_quote(seen, sizeof seen, v->valuestring);
                r = strlen(v->valuestring) > 24 ? -ERANGE : parse_size(v->valuestring, "KMGTkmgt", &bytes);
                if (r == -EINVAL)
                        return def_error(err, "invalid_value", path,
                                         "must be a size such as \"512M\" or \"4G\" (K, M, G, T are "
                                         "binary units) or an integer of bytes, got %s",
                                         seen);
                if (r < 0)
                        bytes = UINT64_MAX;
        } else
                return def_error(err, "wrong_type", path,
                                 "must be a size such as \"4G\" or an integer of bytes, got %s",
                                 def_type_name(v));

        if (bytes < DEFINITION_MEMORY_MIN)
                return def_error(err, "out_of_range", path, "must be at least 1M, got %s", seen);
        if (bytes > DEFINITION_MEMORY_MAX)
                return def_error(err, "out_of_range", path, "must be at most 1P, got %s", seen);
        if (host && host->memory_bytes > 0 && bytes > host->memory_bytes)
                return def_error(err, "not_on_host", path,
                                 "must be at most this host's memory of %llu bytes, got %s",
                                 (unsigned long long) host->memory_bytes, seen);
        *ret = bytes;
        return 0;
}

/* RFC 1123 host name; a last label of digits only would be a mistyped IPv4 address. */
static bool hostname_valid(const char *s, size_t len) {
        size_t label = 0;
        bool all_digits = true;

        if (len == 0 || len > HOSTPORT_HOST_MAX)
                return false;
        for (size_t i = 0; i <= len; i++) {
                char c = i < len ? s[i] : '.';
                if (c == '.') {
                        if (label == 0 || label > 63 || s[i - 1] == '-')
                                return false;
                        if (i == len && all_digits)
                                return false;
                        label = 0;
                        all_digits = true;
                        continue;
                }
                if (!isalnum((unsigned char) c) && !(c == '-' && label > 0))
                        return false;
                if (!isdigit((unsigned char) c))
                        all_digits = false;
                label++;
        }
        return true;
}

/* host[:port] or [v6][:port] in s[0..len), split by hostport_split(); the host must be an IPv4
 * address, a host name or, in brackets, an IPv6 address, and comes back lowercased. Port 0 when
 * absent. -EINVAL with *why set. */
static int parse_authority(const char *s, size_t len, char **ret_host, bool *ret_ipv6,
                           uint16_t *ret_port, const char **why) {
        struct hostport hp;
        int r = hostport_split(s, len, 0, &hp, why);
        if (r < 0)
                return r;

        char buf[HOSTPORT_HOST_MAX + 1];
        unsigned char addr[16];
        memcpy(buf, hp.host, hp.host_len);
        buf[hp.host_len] = '\0';
        if (hp.ipv6) {
                if (inet_pton(AF_INET6, buf, addr) != 1) {
                        *why = "the IPv6 address does not parse";
                        return -EINVAL;
                }
        } else if (inet_pton(AF_INET, buf, addr) != 1 && !hostname_valid(buf, hp.host_len)) {
                *why = "the host is neither an IPv4 address nor a valid host name";
                return -EINVAL;
        }
        for (size_t i = 0; i < hp.host_len; i++)
                buf[i] = (char) tolower((unsigned char) buf[i]);
        char *h = strdup(buf);
        if (!h)
                return -ENOMEM;
        *ret_host = h;
        *ret_ipv6 = hp.ipv6;
        *ret_port = hp.port;
        return 0;
}

static int authority_error(int r, const char *path, const char *s, const char *what, const char *why,
                           struct error *err) {
        char q[96];
        if (r == -ENOMEM)
                return def_oom(err);
        def_quote(q, sizeof q, s);
        return def_error(err, "invalid_value", path, "must be %s: %s, got %s", what, why, q);
}

/* RFC 3986 path and query characters, with %XX escapes; no fragment. */
static bool url_path_valid(const char *p) {
        for (; *p; p++) {
                if (*p == '%') {
                        if (!isxdigit((unsigned char) p[1]) || !isxdigit((unsigned char) p[2]))
                                return false;
                        p += 2;
                } else if (!isalnum((unsigned char) *p) && !strchr("-._~!$&'()*+,;=:@/?", *p))
                        return false;
        }
        return true;
}

int def_parse_url(const char *s, const char *path, struct definition_url *ret, struct error *err) {
        const char *what = "an http:// URL (http://host[:port][/path])";
        static const char scheme[] = "http://";
        struct definition_url u = { 0 };
        uint16_t port;
        int r;

        if (strncmp(s, scheme, strlen(scheme)) != 0)
                return authority_error(-EINVAL, path, s, what,
                                       strncmp(s, "https://", 8) == 0 ? "https is not supported"
                                                                      : "the scheme must be http://",
                                       err);
        const char *a = s + strlen(scheme);
        size_t alen = strcspn(a, "/?#");
        if (memchr(a, '@', alen))
                return authority_error(-EINVAL, path, s, what, "user information is not allowed", err);
        if (strchr(a, '#'))
                return authority_error(-EINVAL, path, s, what, "a fragment is not allowed", err);
        const char *rest = a + alen;
        if (!url_path_valid(rest))
                return authority_error(-EINVAL, path, s, what,
                                       "the path has a character that must be %-escaped", err);

        const char *why = NULL;
        r = parse_authority(a, alen, &u.host, &u.ipv6, &port, &why);
        if (r < 0)
                return authority_error(r, path, s, what, why, err);
        u.port = port ? port : 80;
        r = asprintf(&u.path, "%s%s", rest[0] == '/' ? "" : "/", rest);
        if (r < 0) {
                u.path = NULL;
                def_url_done(&u);
                return def_oom(err);
        }
        *ret = u;
        return 0;
}

int def_parse_host_port(const char *s, const char *path, char **ret_host, bool *ret_ipv6,
                        uint16_t *ret_port, struct error *err) {
        const char *what = "host:port (or [IPv6]:port)";
        const char *why = NULL;
        uint16_t port;
        char *host;
        bool ipv6;

        int r = parse_authority(s, strlen(s), &host, &ipv6, &port, &why);
        if (r < 0)
                return authority_error(r, path, s, what, why, err);
        if (port == 0) {
                free(host);
                return authority_error(-EINVAL, path, s, what, "the port is missing", err);
        }
        *ret_host = host;
        *ret_ipv6 = ipv6;
        *ret_port = port;
        return 0;
}

int def_parse_host(const char *s, const char *path, char **ret, struct error *err) {
        const char *what = "a host name or an IP address (without brackets or port)";
        size_t len = strlen(s);
        unsigned char addr[16];

        if (len == 0 || len > HOSTPORT_HOST_MAX)
                return authority_error(-EINVAL, path, s, what, "1 to 253 bytes", err);
        if (inet_pton(AF_INET, s, addr) != 1 && inet_pton(AF_INET6, s, addr) != 1 && !hostname_valid(s, len))
                return authority_error(-EINVAL, path, s, what, "neither an IP address nor a valid host name", err);
        char *h = strdup(s);
        if (!h)
                return def_oom(err);
        for (char *c = h; *c; c++)
                *c = (char) tolower((unsigned char) *c);
        *ret = h;
        return 0;
}

bool def_host_is_local(const char *host) {
        size_t len = strlen(host);
        unsigned char a[16];
        static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

        if (strcmp(host, "localhost") == 0 || (len > 10 && strcmp(host + len - 10, ".localhost") == 0))
                return true;
        if (inet_pton(AF_INET, host, a) == 1)
                return a[0] == 127 || (a[0] | a[1] | a[2] | a[3]) == 0;
        if (inet_pton(AF_INET6, host, a) != 1)
                return false;
        if (memcmp(a, mapped, sizeof mapped) == 0)
                return a[12] == 127 || (a[12] | a[13] | a[14] | a[15]) == 0;
        for (size_t i = 0; i < 15; i++)
                if (a[i])
                        return false;
        return a[15] <= 1; /* :: and ::1 */
}

void def_format_host_port(char *buf, size_t size, const char *host, bool ipv6, uint16_t port) {
        snprintf(buf, size, ipv6 ? "[%s]:%u" : "%s:%u", host, (unsigned) port);
}

void def_format_url(char *buf, size_t size, const struct definition_url *u) {
        snprintf(buf, size, u->ipv6 ? "http://[%s]:%u%s" : "http://%s:%u%s", u->host, (unsigned) u->port,
                 u->path);
}

void def_url_done(struct definition_url *u) {
        free(u->host);
        free(u->path);
        *u = (struct definition_url){ 0 };
}

/* Skip a bracket expression starting at s[i] == '['; index after its ']', or len if unclosed
 * (regcomp reports that). */
static size_t skip_bracket(const char *s, size_t len, size_t i) {
        i++;
        if (i < len && s[i] == '^')
                i++;
        if (i < len && s[i] == ']')
                i++;
        while (i < len && s[i] != ']') {
                if (s[i] == '[' && i + 1 < len && strchr(".:=", s[i + 1])) {
                        char close[3] = { s[i + 1], ']', '\0' };
                        const char *e = strstr(s + i + 2, close);
                        if (!e)
                                return len;
                        i = (size_t) (e - s) + 2;
                } else
                        i++;
        }
        return i < len ? i + 1 : len;
}

/* Decimal at s[*j], saturated above 255. */
static unsigned read_bound(const char *s, size_t len, size_t *j) {
        unsigned v = 0;
        for (; *j < len && isdigit((unsigned char) s[*j]); (*j)++)
                v = v > 255 ? v : v * 10 + (unsigned) (s[*j] - '0');
        return v;
}

/* {m}, {m,} or {m,n} at s[*i] == '{'; the number of copies glibc's regcomp makes of the operand,
 * index after '}'. */
static int parse_interval(const char *s, size_t len, size_t *i, unsigned *ret, const char **why) {
        size_t j = *i + 1;
        unsigned lo, hi;

        if (j >= len || !isdigit((unsigned char) s[j])) {
                *why = "an interval must be {m}, {m,} or {m,n}";
                return -EINVAL;
        }
        lo = hi = read_bound(s, len, &j);
        if (j < len && s[j] == ',') {
                j++;
                hi = j < len && isdigit((unsigned char) s[j]) ? read_bound(s, len, &j) : lo + 1;
        }
        if (j >= len || s[j] != '}') {
                *why = "an interval must be {m}, {m,} or {m,n}";
                return -EINVAL;
        }
        if (lo > 255 || hi > 256) {
                *why = "interval bounds must be at most 255";
                return -EINVAL;
        }
        *i = j + 1;
        *ret = MAX(MAX(lo, hi), 1u);
        return 0;
}

#define REGEX_NODES_MAX 2048

/* glibc's regcomp builds "a+" as "aa*" and "a{m,n}" from copies of a, so stacked or nested
 * repetitions grow the automaton exponentially ("a++++..." or "((a{9}){9}){9}"). This estimates
 * the size of the expanded pattern and refuses it beyond REGEX_NODES_MAX; back-references, which
 * make matching itself exponential, are refused too, and so are adjacent repetition operators. */
static int regex_shape(const char *s, const char **why) {
        size_t len = strlen(s), depth = 0;
        bool after_postfix = false;
        /* per open group: size so far, size of the last atom (what a postfix operator repeats) */
        size_t size[DEFINITION_REGEX_MAX + 1] = { 0 }, last[DEFINITION_REGEX_MAX + 1] = { 0 };

        for (size_t i = 0; i < len;) {
                size_t atom = 1, grown = 0;
                unsigned copies;
                bool postfix = false;

                if (s[i] == '\\') {
                        if (i + 1 < len && s[i + 1] >= '1' && s[i + 1] <= '9') {
                                *why = "back-references are not supported";
                                return -EINVAL;
                        }
                        i += 2;
                } else if (s[i] == '[')
                        i = skip_bracket(s, len, i);
                else if (s[i] == '(' && depth < DEFINITION_REGEX_MAX) {
                        depth++;
                        size[depth] = last[depth] = 0;
                        i++;
                        continue;
                } else if (s[i] == ')' && depth > 0) {
                        atom = size[depth] + 1;
                        depth--;
                        i++;
                } else if (s[i] == '*' || s[i] == '?') {
                        postfix = true;
                        grown = last[depth] + 1;
                        i++;
                } else if (s[i] == '+') {
                        postfix = true;
                        grown = 2 * last[depth] + 1;
                        i++;
                } else if (s[i] == '{') {
                        if (parse_interval(s, len, &i, &copies, why) < 0)
                                return -EINVAL;
                        postfix = true;
                        grown = last[depth] * copies + 1;
                } else if (s[i] == '|') {
                        atom = 0;
                        size[depth]++;
                        i++;
                } else
                        i++;

                /* POSIX leaves adjacent repetitions ("a**", "a+{2}") undefined, and glibc's
                 * closure computation over them is what blows up: refuse them. */
                if (postfix && after_postfix) {
                        *why = "adjacent repetition operators (such as a** or a+?) are not allowed";
                        return -EINVAL;
                }
                after_postfix = postfix;
                if (postfix) {
                        size[depth] += grown - last[depth];
                        last[depth] = grown;
                } else {
                        size[depth] += atom;
                        last[depth] = atom;
                }
                if (size[depth] > REGEX_NODES_MAX) {
                        *why = "its repetitions expand to too large an automaton";
                        return -EINVAL;
                }
        }
        return 0;
}

int def_check_regex(const char *s, const char *path, struct error *err) {
        const char *why = NULL;
        char q[96];
        regex_t re;

        def_quote(q, sizeof q, s);
        if (regex_shape(s, &why) < 0)
                return def_error(err, "invalid_value", path, "must be a POSIX extended regex: %s, got %s",
                                 why, q);
        int r = regcomp(&re, s, REG_EXTENDED | REG_NOSUB);
        if (r != 0) {
                char msg[128];
                regerror(r, &re, msg, sizeof msg);
                return def_error(err, "invalid_value", path,
                                 "must be a POSIX extended regex that compiles: %s, got %s", msg, q);
        }
        regfree(&re);
        return 0;
}

int def_check_command(char **argv, const char *path, struct error *err) {
        char p[DEF_PATH_MAX], q[96];
        const char *a0 = argv[0];

        def_path_index(p, path, 0);
        if (a0[0] == '\0')
                return def_error(err, "invalid_value", p, "the program must not be empty");
        def_quote(q, sizeof q, a0);
        if (strchr(a0, '/') && a0[0] != '/')
                return def_error(err, "invalid_value", p,
                                 "must be an absolute path or a bare name looked up in PATH, got %s", q);
        if (strcmp(a0, ".") == 0 || strcmp(a0, "..") == 0 || a0[strlen(a0) - 1] == '/')
                return def_error(err, "invalid_value", p, "must name a program, got %s", q);
        return 0;
}

int def_check_env_key(const char *key, const char *path, struct error *err) {
        size_t len = strlen(key);
        if (len >= 1 && len <= DEFINITION_ENV_KEY_MAX && !isdigit((unsigned char) key[0]) &&
            strspn(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == len)
                return 0;
        char q[96];
        def_quote(q, sizeof q, key);
        return def_error(err, "invalid_value", path,
                         "variable names must match [A-Za-z_][A-Za-z0-9_]* (at most %d bytes), got %s",
                         DEFINITION_ENV_KEY_MAX, q);
}

int def_check_timeline_path(const char *s, const char *path, struct error *err) {
        char q[96];
        const char *why = NULL;
        size_t len = strlen(s);

        if (s[0] == '/')
                why = "must be relative to the run directory";
        else if (strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/") != len)
                why = "may use only A-Z a-z 0-9 . _ - and /";
        else
                for (const char *c = s; *c && !why;) {
                        size_t n = strcspn(c, "/");
                        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
                                why = "must not have empty, \".\" or \"..\" components";
                        c += n;
                        if (*c == '/')
                                c++;
                        if (*c == '\0' && c[-1] == '/')
                                why = "must name a file, not a directory";
                }
        if (!why)
                return 0;
        def_quote(q, sizeof q, s);
        return def_error(err, "invalid_value", path, "%s, got %s", why, q);
}

int def_parse_cpulist(const cJSON *v, const char *path, const struct cpulist *online,
                      const char *what, struct cpulist *ret, struct error *err) {
        _cleanup_free_ char *s = NULL;
        struct cpulist c;
        char q[96];

        int r = def_get_string(v, path, CPULIST_TEXT_MAX, 0, &s, err);
        if (r < 0)
                return r;
        def_quote(q, sizeof q, s);
        r = cpulist_parse(s, &c);
        if (r == -ERANGE)
                return def_error(err, "out_of_range", path, "%s numbers must be below %d, got %s", what,
                                 CPULIST_MAX, q);
        if (r < 0)
                return def_error(err, "invalid_value", path,
                                 "must be a cpulist such as \"0-3,8\", got %s", q);
        if (online && !cpulist_is_subset(&c, online)) {
                struct cpulist missing = c;
                char m[256], o[256];
                for (size_t i = 0; i < ELEMENTSOF(missing.bits); i++)
                        missing.bits[i] &= ~online->bits[i];
                if (cpulist_format(&missing, m, sizeof m) < 0)
                        snprintf(m, sizeof m, "(many)");
                if (cpulist_format(online, o, sizeof o) < 0)
                        snprintf(o, sizeof o, "(many)");
                return def_error(err, "not_on_host", path, "%s %s not online (this host has %s online), got %s",
                                 what, m, o, q);
        }
        *ret = c;
        return 0;
}
