/* root-lock.h: one daemon per cgroup root. A second slicelabd on the same root would reconcile
 * (kill and remove) the first one's runs and rebuild the root under its feet, so the root is
 * claimed with an exclusive flock() on /run/slicelab/cgroup-root-<name>.lock before any cgroup
 * is touched, and held for the daemon's life. */
#pragma once

#define ROOT_LOCK_DIR "/run/slicelab"

struct root_lock;

/* Takes the lock for the cgroup root name, or fails: -EBUSY (logged with the root, the lock
 * file and the holder's pid) when another daemon holds it, another -errno when the lock file
 * cannot be made. dir NULL = ROOT_LOCK_DIR. *ret untouched on failure. */
int root_lock_take(const char *dir, const char *root_name, struct root_lock **ret);
/* Removes the lock file and releases the lock (NULL is fine). */
void root_lock_release(struct root_lock *l);
