/* peer-config.c: a lab host's name checked and matched against --peer-allow (peer-config.h). */
#include "peer/peer-config.h"

#include <ctype.h>
#include <string.h>

#include "basic/host-pattern.h"

bool peer_host_valid(const char *host) {
        size_t n = host ? strlen(host) : 0;
        if (n == 0 || n > PEER_HOST_MAX || host[0] == '-' || host[0] == '.')
                return false;
        for (const char *p = host; *p; p++)
                if (!isalnum((unsigned char) *p) && !strchr(".-_:", *p))
                        return false;
        return true;
}

bool peer_host_allowed(const struct peer_config *c, const char *host) {
        if (!c || !c->allow || !peer_host_valid(host))
                return false;
        size_t n = 0;
        while (c->allow[n])
                n++;
        /* The rule the definition's load.hosts are checked by, so both sides agree on a name. */
        return host_patterns_match(c->allow, n, host);
}
