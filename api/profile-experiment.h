/* profile-experiment.h: what the experiment-wide profile requests share (api/profile.c): their
 * experiment, its report rows and the cell asked for. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "api/handlers.h"
#include "storage/experiments.h"

/* An experiment-wide profile request's experiment (GET /v1/experiments/{id}/profile and
 * /profile/tree): its report rows and cell names, read with the request's lease, which is then
 * released. */
struct profile_experiment {
        struct cJSON *rows, *cells;
        char status[EXPERIMENT_STATUS_SIZE];
};

/* The experiment of the request's path, `cell` required (what: why, for the 400's message) and
 * one of its cells. false when the request was answered (400 naming cell, 404, 5xx): *ret_reply
 * is the answer's result. ret is filled either way: api_profile_experiment_done() frees it. */
bool api_profile_experiment(struct api_request *req, const char *cell, const char *what, struct profile_experiment *ret,
                            enum MHD_Result *ret_reply);
/* Whether its runs are all in: a running or queued experiment's cell may gain runs, so only a
 * finished one's answer is kept for its ETag. */
bool api_profile_experiment_finished(const struct profile_experiment *e);
void api_profile_experiment_done(struct profile_experiment *e);
