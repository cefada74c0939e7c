/* conn.h: one connection's state, and the lists a worker keeps its connections on (down, timed,
 * idle: connection.h says which when), with the token its epoll events carry. Types and
 * O(1) list moves only, so that worker.h can hold the lists without the connection's functions,
 * which use the worker. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "injector/http-parser.h"

enum conn_state {
        CONN_DOWN,
        CONN_CONNECTING,
        CONN_IDLE,
        CONN_BUSY,
};

struct conn;

struct conn_list {
        struct conn *head, *tail;
};

struct conn {
        struct conn *prev, *next;
        struct conn_list *list;
        int fd;
        uint32_t index;
        uint32_t gen;           /* bumped per socket, so a stale event cannot hit a new one */
        uint8_t state;
        bool connected;
        bool want_out;
        uint64_t k;             /* the request it carries */
        int64_t start_ns;       /* submit (BUSY) or connect start (CONNECTING) */
        int64_t received_ns;    /* when the bytes read last arrived (recv-stamp.h) */
        size_t sent;
        int64_t retry_ns;       /* DOWN: may be opened from then on */
        int64_t backoff_ns;
        uint64_t served;        /* answers on the current socket */
        struct http_parser parser;
};

static inline void conn_list_append(struct conn_list *l, struct conn *c) {
        c->list = l;
        c->next = NULL;
        c->prev = l->tail;
        if (l->tail)
                l->tail->next = c;
        else
                l->head = c;
        l->tail = c;
}

static inline void conn_list_remove(struct conn *c) {
        struct conn_list *l = c->list;
        if (!l)
                return;
        if (c->prev)
                c->prev->next = c->next;
        else
                l->head = c->next;
        if (c->next)
                c->next->prev = c->prev;
        else
                l->tail = c->prev;
        c->prev = c->next = NULL;
        c->list = NULL;
}

static inline uint64_t conn_token(const struct conn *c) {
        return (uint64_t) c->gen << 32 | c->index;
}
