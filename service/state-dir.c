/* state-dir.c: preparing the state directory and the API token. */
#include "service/state-dir.h"

#include <ctype.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/macro.h"

int state_dir_prepare(const char *dir, bool others_traverse) {
        mode_t mode = others_traverse ? 0711 : 0700;
        int r = mkdir_parents(dir, 0700);
        if (r < 0)
                return log_error_errno(r, "state directory %s cannot be created", dir);
        struct stat st;
        if (stat(dir, &st) < 0)
                return log_error_errno(negative_errno(), "state directory %s", dir);
        if (!S_ISDIR(st.st_mode))
                return log_error_errno(-ENOTDIR, "state directory %s", dir);
        /* root passes access(W_OK) even on a read-only mount, so prove it by making a file. */
        char probe[PATH_MAX];
        snprintf(probe, sizeof probe, "%s/.write-test-XXXXXX", dir);
        _cleanup_close_ int fd = mkostemp(probe, O_CLOEXEC);
        if (fd < 0)
                return log_error_errno(negative_errno(), "state directory %s is not writable", dir);
        unlink(probe);
        /* mkdir's mode passes through the umask, and an existing directory keeps its own. */
        if ((st.st_mode & 07777) != mode && chmod(dir, mode) < 0)
                return log_error_errno(negative_errno(), "state directory %s: chmod", dir);
        char runs[PATH_MAX];
        snprintf(runs, sizeof runs, "%s/runs", dir);
        if (mkdir(runs, mode) < 0 && errno != EEXIST)
                return log_error_errno(negative_errno(), "cannot create %s", runs);
        if (chmod(runs, mode) < 0)
                return log_error_errno(negative_errno(), "%s: chmod", runs);
        return 0;
}

int state_dir_private(const char *db_path) {
        _cleanup_close_ int fd = open(db_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return log_error_errno(negative_errno(), "cannot open %s", db_path);
        if (fchmod(fd, 0600) < 0)
                return log_error_errno(negative_errno(), "%s: chmod", db_path);
        static const char *const suffixes[] = { "-wal", "-shm" };
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                char path[PATH_MAX];
                snprintf(path, sizeof path, "%s%s", db_path, suffixes[i]);
                if (chmod(path, 0600) < 0 && errno != ENOENT)
                        return log_error_errno(negative_errno(), "%s: chmod", path);
        }
        return 0;
}

static bool token_valid(const char *s) {
        if (strlen(s) != TOKEN_HEX_LEN)
                return false;
        for (const char *p = s; *p; p++)
                if (!isxdigit((unsigned char) *p))
                        return false;
        return true;
}

static int token_generate(char token[TOKEN_HEX_LEN + 1]) {
        unsigned char raw[TOKEN_HEX_LEN / 2];
        if (getrandom(raw, sizeof raw, 0) != (ssize_t) sizeof raw)
                return negative_errno();
        for (size_t i = 0; i < sizeof raw; i++)
                snprintf(token + 2 * i, 3, "%02x", raw[i]);
        return 0;
}

int state_dir_token(const char *dir, char token[TOKEN_HEX_LEN + 1]) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/token", dir);
        for (int attempt = 0; attempt < 2; attempt++) {
                _cleanup_free_ char *line = NULL;
                int r = read_one_line(path, &line);
                if (r >= 0) {
                        if (!token_valid(line))
                                return log_error_errno(-EINVAL, "%s is not a token of %d hex characters; remove it to make a new one",
                                                       path, TOKEN_HEX_LEN);
                        memcpy(token, line, TOKEN_HEX_LEN + 1);
                        return 0;
                }
                if (r != -ENOENT)
                        return log_error_errno(r, "cannot read %s", path);
                char fresh[TOKEN_HEX_LEN + 2];
                r = token_generate(fresh);
                if (r < 0)
                        return log_error_errno(r, "cannot generate a token");
                strcat(fresh, "\n");
                r = write_file_atomic(path, fresh, strlen(fresh), 0600);
                if (r < 0 && r != -EEXIST) /* EEXIST: another start won the race; read theirs */
                        return log_error_errno(r, "cannot write %s", path);
                if (r >= 0)
                        log_notice("created API token %s", path);
        }
        return log_error_errno(-EIO, "cannot settle on a token in %s", path);
}

int state_dir_peer_token(const char *path, char token[TOKEN_HEX_LEN + 1]) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
                return log_error_errno(negative_errno(), "--peer-token-file %s cannot be opened (not a symlink)", path);
        struct stat st;
        if (fstat(fd, &st) < 0)
                return log_error_errno(negative_errno(), "--peer-token-file %s", path);
        if (!S_ISREG(st.st_mode))
                return log_error_errno(-EINVAL, "--peer-token-file %s is not a regular file", path);
        _cleanup_free_ char *text = NULL;
        int r = read_fd_bounded(fd, 4096, &text, NULL);
        if (r < 0)
                return log_error_errno(r, "--peer-token-file %s cannot be read (at most 4 KiB)", path);
        text[strcspn(text, "\r\n")] = '\0';
        if (!token_valid(text))
                return log_error_errno(-EINVAL, "--peer-token-file %s does not begin with a token of %d hex characters "
                                       "(a peer's state-dir token)", path, TOKEN_HEX_LEN);
        if (st.st_mode & 0077)
                log_warning("--peer-token-file %s can be read by others than its owner (mode %04o): chmod 600 it",
                            path, (unsigned) (st.st_mode & 07777));
        memcpy(token, text, TOKEN_HEX_LEN + 1);
        explicit_bzero(text, strlen(text));
        return 0;
}
