/* rules.h: the rules, one per file, each a pure function over the experiment's data that
 * appends its findings to out. findings.c lists them in its registry; tests call them one by
 * one. */
#pragma once

#include "findings/findings.h"

void findings_rule_difference(const struct findings_input *in, cJSON *out);
void findings_rule_throttling(const struct findings_input *in, cJSON *out);
void findings_rule_ergonomics(const struct findings_input *in, cJSON *out);
void findings_rule_gc(const struct findings_input *in, cJSON *out);
void findings_rule_injector(const struct findings_input *in, cJSON *out);
void findings_rule_noise(const struct findings_input *in, cJSON *out);
void findings_rule_drift(const struct findings_input *in, cJSON *out);
void findings_rule_jit(const struct findings_input *in, cJSON *out);
void findings_rule_governor(const struct findings_input *in, cJSON *out);
void findings_rule_frequency(const struct findings_input *in, cJSON *out);
void findings_rule_interference(const struct findings_input *in, cJSON *out);
void findings_rule_memory(const struct findings_input *in, cJSON *out);
void findings_rule_energy(const struct findings_input *in, cJSON *out);
void findings_rule_profile(const struct findings_input *in, cJSON *out);
void findings_rule_steady_state(const struct findings_input *in, cJSON *out);
