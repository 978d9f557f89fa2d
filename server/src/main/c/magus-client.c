/*
 * magus-client: the native forwarding client of `magus run`, the C twin of
 * dev.magus.server.client.FastClient, built only where a C compiler is present (see
 * server/pom.xml). cli's build copies it to bin/magus, where it is the front of every magus
 * command: `magus run` and `magus target` are forwarded, anything else goes by exec to
 * libexec/magus-jvm beside it, with the same words. Under its own name it is the client alone:
 *
 *   magus-client N FALLBACK-ARGV... (N words: a java command) ARGS...
 *
 * A fallback is exec'd with MAGUS_NATIVE_FELL_BACK=1, which stops a front from trying again.
 *
 * It reads no option of ARGS but one word, --local, which as the front it hands to the JVM's side
 * unsent; it sends the rest as they are, with its working directory and
 * environment, and the server parses them with the command line's own model.
 *
 * It speaks the frames of dev.magus.server.protocol.Frame (version 5) over the Unix socket: a
 * 4-byte big-endian length, a kind byte (0 JSON, 1 stdout, 2 stderr, 3 stdin), the body. The
 * token comes from MAGUS_PROC_TOKEN or the token file beside the socket; the child's bytes go
 * to descriptors 1 and 2 as they arrive, magus's own lines among them (the server writes them on
 * the run's stderr as a local run prints them, so no client renders any); SIGINT, SIGTERM and SIGHUP go to the child's group; stdin unless --no-stdin; the exit
 * status is the run's. Standard input is passed as a descriptor (SCM_RIGHTS) when the server takes
 * one (Frame.Accepted), so the child reads it itself and a terminal stays one; output is copied:
 * the server reads the child's pipes itself (Frame's comment says why).
 *
 * Whatever it cannot do it hands to the Java command line by exec (nothing of the run has
 * started then): another command than run or target, no socket or token, a
 * directory that is not private, nobody listening, a command only that command line serves
 * (the server says so; run as given); a server that refuses this client or
 * declines the run is said so on stderr, and the run goes to `magus run --local`, as the Java
 * client does it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define VERSION 5 /* Frame.VERSION (NativeClientSourceTest holds the two together) */
#define STR(x) #x
#define XSTR(x) STR(x)
#define K_JSON 0
#define K_STDOUT 1
#define K_STDERR 2
#define K_STDIN 3
#define MAX_FRAME (16 * 1024 * 1024)

extern char **environ;

/* ---------- growable byte buffer ---------- */
typedef struct { char *p; size_t n, cap; } buf;

static void put(buf *b, const void *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap : 256;
        while (c < b->n + n + 1) c *= 2;
        char *q = realloc(b->p, c);
        if (!q) { perror("magus"); exit(125); }
        b->p = q; b->cap = c;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}
static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

/* ---------- UTF-8 <-> UTF-16 (Java's String semantics) ---------- */
/* Decodes UTF-8 as Java's new String(bytes, UTF_8) does (malformed -> U+FFFD) into UTF-16 units;
   with raw, as RawBytes.decode does instead: each byte that starts no valid sequence is kept as
   U+DC80..U+DCFF, so that an argument that is not UTF-8 reaches the child as it was written. */
static size_t utf16r(const unsigned char *s, size_t n, uint16_t *out, int raw) {
    size_t i = 0, k = 0;
    while (i < n) {
        unsigned c = s[i];
        unsigned cp; size_t len;
        if (c < 0x80) { cp = c; len = 1; }
        else if (c >= 0xc2 && c < 0xe0) { cp = c & 0x1f; len = 2; }
        else if (c >= 0xe0 && c < 0xf0) { cp = c & 0x0f; len = 3; }
        else if (c >= 0xf0 && c < 0xf5) { cp = c & 0x07; len = 4; }
        else { out[k++] = raw ? (uint16_t) (0xdc00 | c) : 0xfffd; i++; continue; }
        size_t j = 1;
        for (; j < len && i + j < n && (s[i + j] & 0xc0) == 0x80; j++) cp = (cp << 6) | (s[i + j] & 0x3f);
        if (j < len || (len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff))) {
            if (raw) { out[k++] = (uint16_t) (0xdc00 | c); i++; continue; }
            out[k++] = 0xfffd; i += j ? j : 1; continue;
        }
        i += len;
        if (cp >= 0x10000) { cp -= 0x10000; out[k++] = 0xd800 | (cp >> 10); out[k++] = 0xdc00 | (cp & 0x3ff); }
        else out[k++] = (uint16_t) cp;
    }
    return k;
}

static size_t utf16(const unsigned char *s, size_t n, uint16_t *out) { return utf16r(s, n, out, 0); }

/* UTF-16 units to UTF-8 as Java's encoder writes them (a lone surrogate is '?'). */
static void utf8(buf *b, const uint16_t *u, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned c = u[i];
        char o[4];
        if (c < 0x80) { o[0] = (char) c; put(b, o, 1); }
        else if (c < 0x800) { o[0] = 0xc0 | (c >> 6); o[1] = 0x80 | (c & 0x3f); put(b, o, 2); }
        else if (c >= 0xd800 && c < 0xdc00 && i + 1 < n && u[i + 1] >= 0xdc00 && u[i + 1] < 0xe000) {
            unsigned cp = 0x10000 + ((c - 0xd800) << 10) + (u[++i] - 0xdc00);
            o[0] = 0xf0 | (cp >> 18); o[1] = 0x80 | ((cp >> 12) & 0x3f); o[2] = 0x80 | ((cp >> 6) & 0x3f); o[3] = 0x80 | (cp & 0x3f);
            put(b, o, 4);
        } else if (c >= 0xd800 && c < 0xe000) { put(b, "?", 1); }
        else { o[0] = 0xe0 | (c >> 12); o[1] = 0x80 | ((c >> 6) & 0x3f); o[2] = 0x80 | (c & 0x3f); put(b, o, 3); }
    }
}

/* "text" as FastClient's Jackson generator writes it, from bytes as FastClient has them (RawBytes:
   UTF-8, a byte that is not, U+DC80..U+DCFF, escaped as \uDCXX; \b and \f short, other controls \u00XX). */
static void quote(buf *b, const char *s) {
    size_t n = strlen(s);
    uint16_t *u = malloc((n + 1) * sizeof *u);
    size_t k = utf16r((const unsigned char *) s, n, u, 1);
    put(b, "\"", 1);
    size_t start = 0;
    for (size_t i = 0; i < k; i++) {
        uint16_t c = u[i];
        const char *esc = NULL; char tmp[8];
        if (c == '"') esc = "\\\""; else if (c == '\\') esc = "\\\\"; else if (c == '\n') esc = "\\n";
        else if (c == '\r') esc = "\\r"; else if (c == '\t') esc = "\\t"; else if (c == '\b') esc = "\\b"; else if (c == '\f') esc = "\\f";
        else if (c >= 0xd800 && c < 0xdc00 && i + 1 < k && u[i + 1] >= 0xdc00 && u[i + 1] < 0xe000) { i++; continue; }
        else if (c < 0x20 || (c >= 0xd800 && c < 0xe000)) { snprintf(tmp, sizeof tmp, "\\u%04X", c); esc = tmp; }
        if (esc) { utf8(b, u + start, i - start); puts_(b, esc); start = i + 1; }
    }
    utf8(b, u + start, k - start);
    put(b, "\"", 1);
    free(u);
}

/* ---------- a small JSON reader (the control frames) ---------- */
enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };
typedef struct json {
    int t;
    double num;
    uint16_t *s; size_t sn;          /* J_STR: UTF-16 units */
    struct json **kids; char **keys; size_t n; /* J_ARR, J_OBJ (keys as UTF-8) */
} json;

typedef struct { const unsigned char *s; size_t i, n; const char *err; } jp;

static void ws(jp *p) { while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r')) p->i++; }
static json *node(int t) { json *j = calloc(1, sizeof *j); j->t = t; return j; }
static json *value(jp *p, int depth);

static json *jstring(jp *p) {
    if (p->i >= p->n || p->s[p->i] != '"') { p->err = "expected a string"; return NULL; }
    p->i++;
    json *j = node(J_STR);
    j->s = malloc((p->n - p->i + 1) * sizeof(uint16_t));
    size_t run = p->i;
    for (;;) {
        if (p->i >= p->n) { p->err = "unterminated string"; return NULL; }
        unsigned char c = p->s[p->i];
        if (c == '"' || c == '\\') {
            j->sn += utf16(p->s + run, p->i - run, j->s + j->sn);
            if (c == '"') { p->i++; return j; }
            if (p->i + 1 >= p->n) { p->err = "unterminated string"; return NULL; }
            char e = p->s[p->i + 1];
            p->i += 2;
            uint16_t v;
            switch (e) {
                case 'n': v = '\n'; break; case 'r': v = '\r'; break; case 't': v = '\t'; break;
                case 'b': v = '\b'; break; case 'f': v = '\f'; break;
                case 'u': {
                    if (p->i + 4 > p->n) { p->err = "bad escape"; return NULL; }
                    char h[5]; memcpy(h, p->s + p->i, 4); h[4] = 0;
                    char *end; v = (uint16_t) strtoul(h, &end, 16);
                    if (*end) { p->err = "bad escape"; return NULL; }
                    p->i += 4; break;
                }
                default: v = (uint16_t) e;
            }
            j->s[j->sn++] = v;
            run = p->i;
        } else {
            p->i++;
        }
    }
}

static char *key8(json *s) { buf b = {0}; utf8(&b, s->s, s->sn); if (!b.p) puts_(&b, ""); return b.p; }

static json *value(jp *p, int depth) {
    ws(p);
    if (depth > 64) { p->err = "too deep"; return NULL; }
    if (p->i >= p->n) { p->err = "unexpected end"; return NULL; }
    unsigned char c = p->s[p->i];
    if (c == '{' || c == '[') {
        json *j = node(c == '{' ? J_OBJ : J_ARR);
        char close = c == '{' ? '}' : ']';
        p->i++; ws(p);
        if (p->i < p->n && p->s[p->i] == close) { p->i++; return j; }
        for (;;) {
            char *k = NULL;
            ws(p);
            if (j->t == J_OBJ) {
                json *ks = jstring(p);
                if (!ks) return NULL;
                k = key8(ks);
                free(ks->s); free(ks);
                ws(p);
                if (p->i >= p->n || p->s[p->i] != ':') { p->err = "expected ':'"; return NULL; }
                p->i++;
            }
            json *v = value(p, depth + 1);
            if (!v) return NULL;
            j->kids = realloc(j->kids, (j->n + 1) * sizeof *j->kids);
            j->keys = realloc(j->keys, (j->n + 1) * sizeof *j->keys);
            j->kids[j->n] = v; j->keys[j->n] = k; j->n++;
            ws(p);
            if (p->i < p->n && p->s[p->i] == ',') { p->i++; continue; }
            if (p->i < p->n && p->s[p->i] == close) { p->i++; return j; }
            p->err = "expected ',' or a closing bracket"; return NULL;
        }
    }
    if (c == '"') return jstring(p);
    if (p->n - p->i >= 4 && !memcmp(p->s + p->i, "true", 4)) { p->i += 4; json *j = node(J_BOOL); j->num = 1; return j; }
    if (p->n - p->i >= 5 && !memcmp(p->s + p->i, "false", 5)) { p->i += 5; return node(J_BOOL); }
    if (p->n - p->i >= 4 && !memcmp(p->s + p->i, "null", 4)) { p->i += 4; return node(J_NULL); }
    size_t start = p->i;
    while (p->i < p->n && strchr("+-0123456789.eE", p->s[p->i]) && p->s[p->i]) p->i++;
    if (p->i == start) { p->err = "unexpected character"; return NULL; }
    char tmp[64]; size_t len = p->i - start < 63 ? p->i - start : 63;
    memcpy(tmp, p->s + start, len); tmp[len] = 0;
    json *j = node(J_NUM); j->num = strtod(tmp, NULL);
    return j;
}

static void release(json *j) {
    if (!j) return;
    for (size_t i = 0; i < j->n; i++) { release(j->kids[i]); free(j->keys ? j->keys[i] : NULL); }
    free(j->kids); free(j->keys); free(j->s); free(j);
}

static json *get(json *o, const char *key) {
    if (!o || o->t != J_OBJ) return NULL;
    json *found = NULL;
    for (size_t i = 0; i < o->n; i++) if (!strcmp(o->keys[i], key)) found = o->kids[i]; /* the last one, as a Map keeps it */
    return found;
}
static int is(json *v, const char *text) {
    if (!v || v->t != J_STR) return 0;
    size_t n = strlen(text);
    if (v->sn != n) return 0;
    for (size_t i = 0; i < n; i++) if (v->s[i] != (unsigned char) text[i]) return 0;
    return 1;
}
/* String.valueOf(value) for the strings and absences a diagnostic has. */
static void text(buf *b, json *v) {
    puts_(b, ""); /* allocated even for "": callers compare b->p */
    if (!v || v->t == J_NULL) puts_(b, "null");
    else if (v->t == J_STR) utf8(b, v->s, v->sn);
    else if (v->t == J_BOOL) puts_(b, v->num ? "true" : "false");
    else if (v->t == J_NUM) { char t[64]; snprintf(t, sizeof t, v->num > -9.2e18 && v->num < 9.2e18 && v->num == (long long) v->num ? "%.0f" : "%g", v->num); puts_(b, t); }
    else puts_(b, "{...}");
}

static void line(const char *s);

/* The exit frame's status: an integer from 0 to 255, as a process status is; anything else (not a
   number, a fraction, out of range: exit(256) would be a success) is said and is 125, as
   FastClient.status does. */
static int status_of(json *s) {
    if (!s || s->t != J_NUM || !(s->num >= 0 && s->num <= 255) || s->num != (double) (int) s->num) {
        line("magus: the magus server sent an exit status that is not one; exiting 125");
        return 125;
    }
    return (int) s->num;
}

/* ---------- the run ---------- */
static int sock = -1;
static int sigpipe_fds[2] = {-1, -1};
static char **java_argv;
static int java_argc;
static char **user_argv;
static int user_argc;
static int out_ok = 1, err_ok = 1;

/* Hands the command line to the Java client, by exec; with local, as `magus run --local ...`. */
static void fallback(int local) {
    if (sock >= 0) close(sock);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    char **argv = calloc(java_argc + user_argc + 2, sizeof *argv);
    int k = 0;
    for (int i = 0; i < java_argc; i++) argv[k++] = java_argv[i];
    for (int i = 0; i < user_argc; i++) {
        argv[k++] = user_argv[i];
        if (i == 0 && local) argv[k++] = "--local";
    }
    argv[k] = NULL;
    /* bin/magus, given as the fallback, then goes on to its java command instead of back here. */
    setenv("MAGUS_NATIVE_FELL_BACK", "1", 1);
    execvp(argv[0], argv);
    fprintf(stderr, "magus: cannot start %s: %s\n", argv[0], strerror(errno));
    exit(125);
}

static void line(const char *s) {
    buf b = {0};
    puts_(&b, s); put(&b, "\n", 1);
    if (write(2, b.p, b.n) < 0) { /* nowhere to say it */ }
    free(b.p);
}

/* Whether the server welcomed this client: before that, nothing of the run has started there. */
static int welcomed = 0;

static void lost(const char *why) {
    /* A server that closes before its welcome (one stopping for its idle timeout as this client
       connected) ran nothing: the run goes to the Java command line, which finds the server gone. */
    if (sock >= 0 && !welcomed) fallback(0);
    buf b = {0};
    puts_(&b, "magus: lost the magus server in the middle of the run: ");
    puts_(&b, why);
    line(b.p);
    exit(125);
}

/* Writes one frame; with soft, a failure is returned (errno) instead of ending the client. */
static int send_frame_soft(int kind, const void *body, size_t n, int soft);
static void send_frame(int kind, const void *body, size_t n) { send_frame_soft(kind, body, n, 0); }

static int send_frame_soft(int kind, const void *body, size_t n, int soft) {
    unsigned char h[5] = {(unsigned char) ((n + 1) >> 24), (unsigned char) ((n + 1) >> 16), (unsigned char) ((n + 1) >> 8),
                          (unsigned char) (n + 1), (unsigned char) kind};
    struct iovec iov[2] = {{h, 5}, {(void *) body, n}};
    struct msghdr m = {0};
    m.msg_iov = iov; m.msg_iovlen = 2;
    size_t left = n + 5;
    while (left > 0) {
        ssize_t w = sendmsg(sock, &m, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (soft) return errno;
            lost(strerror(errno));
        }
        left -= (size_t) w;
        while (w > 0) {
            if ((size_t) w >= m.msg_iov[0].iov_len) { w -= m.msg_iov[0].iov_len; m.msg_iov++; m.msg_iovlen--; }
            else { m.msg_iov[0].iov_base = (char *) m.msg_iov[0].iov_base + w; m.msg_iov[0].iov_len -= w; w = 0; }
        }
    }
    return 0;
}

/* Whether descriptor 0 is one the server gives a child as its standard input (InputDescriptors): open
   for reading on a regular file, a pipe, a socket, a terminal or /dev/null. Anything else (a directory,
   another device) goes as frames, as a local run copies it. */
static int passable_stdin(void) {
    struct stat st;
    int fl = fcntl(0, F_GETFL);
    if (fl < 0 || (fl & O_PATH) || (fl & O_ACCMODE) == O_WRONLY || fstat(0, &st)) return 0;
    if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) return 1;
    return S_ISCHR(st.st_mode) && (isatty(0) || (major(st.st_rdev) == 1 && minor(st.st_rdev) == 3));
}

/* Frame.Accepted with stdinFd: the byte 'F' with descriptor 0 attached (SCM_RIGHTS), the child's own
   from then on; or the byte alone, and stdin follows as frames. */
static int send_stdin_fd(int pass) {
    char marker = 'F';
    struct iovec iov = {&marker, 1};
    union { char b[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } control;
    struct msghdr m = {0};
    m.msg_iov = &iov; m.msg_iovlen = 1;
    if (pass) {
        memset(&control, 0, sizeof control);
        m.msg_control = control.b; m.msg_controllen = sizeof control.b;
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET; c->cmsg_type = SCM_RIGHTS; c->cmsg_len = CMSG_LEN(sizeof(int));
        int zero = 0;
        memcpy(CMSG_DATA(c), &zero, sizeof zero);
    }
    ssize_t w;
    do w = sendmsg(sock, &m, MSG_NOSIGNAL); while (w < 0 && errno == EINTR);
    return w == 1 ? 0 : errno ? errno : EIO;
}

/* Frames read so far and not yet handled. */
static buf in;
static size_t in_off;

/* The next whole frame in `in`, or NULL (then *len is 0); fails closed on a bad length. */
static unsigned char *next_frame(size_t *len) {
    size_t have = in.n - in_off;
    *len = 0;
    if (have < 4) return NULL;
    const unsigned char *p = (unsigned char *) in.p + in_off;
    uint32_t n = ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) | ((uint32_t) p[2] << 8) | p[3];
    if (n == 0 || n > MAX_FRAME) {
        char m[80]; snprintf(m, sizeof m, "a frame of %d bytes from the server", (int) n); lost(m);
    }
    if (have < 4 + (size_t) n) return NULL;
    in_off += 4 + n;
    *len = n;
    return (unsigned char *) p + 4;
}

/* Reads what the socket has; 0 at its end. */
static int fill(void) {
    if (in_off > 0) { /* what was handled goes: the buffer holds at most one frame and one read */
        memmove(in.p, in.p + in_off, in.n - in_off);
        in.n -= in_off;
        in_off = 0;
    }
    char b[65536];
    for (;;) {
        ssize_t r = read(sock, b, sizeof b);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) lost(strerror(errno));
        if (r == 0) return 0;
        put(&in, b, (size_t) r);
        return 1;
    }
}

/* The next frame, waiting for it (the hello's answer). */
static unsigned char *read_frame(size_t *len) {
    unsigned char *f;
    while (!(f = next_frame(len))) {
        if (!fill()) lost("the magus server closed the connection");
    }
    return f;
}

static json *control(unsigned char *f, size_t len) {
    if (f[0] != K_JSON) lost("the magus server sent bytes where a control frame belongs");
    jp p = {f + 1, 0, len - 1, NULL};
    json *v = value(&p, 0);
    if (v) { ws(&p); if (p.i != p.n) { v = NULL; p.err = "trailing text"; } }
    if (!v) { buf b = {0}; puts_(&b, "a control frame that is not JSON: "); puts_(&b, p.err); lost(b.p); }
    if (v->t != J_OBJ) lost("a control frame that is not a JSON object");
    return v;
}

/* A stream the reader went away from is dropped; the run goes on. */
static void pass(int fd, int *ok, const unsigned char *p, size_t n) {
    while (*ok && n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) { *ok = 0; return; }
        p += w; n -= (size_t) w;
    }
}

/* A name of an ask as Echo.visible shows it: a control character, a line or paragraph separator, a
   bidirectional embedding, override, isolate or mark as an escape (\n, \t, \r, \xNN, \uNNNN). */
static void visible(buf *b, json *v) {
    if (!v || v->t != J_STR) { text(b, v); return; }
    puts_(b, "");
    size_t start = 0;
    for (size_t i = 0; i < v->sn; i++) {
        uint16_t c = v->s[i];
        if (!(c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 || (c >= 0x202a && c <= 0x202e)
              || (c >= 0x2066 && c <= 0x2069) || c == 0x200e || c == 0x200f || c == 0x061c)) continue;
        char e[8];
        if (c == '\n') strcpy(e, "\\n"); else if (c == '\t') strcpy(e, "\\t"); else if (c == '\r') strcpy(e, "\\r");
        else snprintf(e, sizeof e, c <= 0xff ? "\\x%02x" : "\\u%04x", c);
        utf8(b, v->s + start, i - start);
        puts_(b, e);
        start = i + 1;
    }
    utf8(b, v->s + start, v->sn - start);
}

/* An ask of the run's (--ask, Frame.Ask): the question TerminalPrompt puts (its names visible), on the controlling
   terminal, for as long as the server waits (timeoutMillis); o/once and r/run allow, anything else
   denies; the decision of the same id goes back. One at a time: the run's other frames wait meanwhile;
   a signal meanwhile gives it up (denied). */
static void forward_signals(void);

static void ask(json *c) {
    buf q = {0}, proc = {0}, path = {0}, res = {0}, acc = {0};
    json *pid = get(c, "pid"), *id = get(c, "id"), *ms = get(c, "timeoutMillis");
    visible(&proc, get(c, "process")); visible(&path, get(c, "path")); visible(&res, get(c, "resolved"));
    visible(&acc, get(c, "access"));
    char n[32];
    snprintf(n, sizeof n, "%lld", pid && pid->t == J_NUM ? (long long) pid->num : 0LL);
    puts_(&q, "magus: ");
    if (proc.p[0]) { puts_(&q, proc.p); puts_(&q, " (pid "); puts_(&q, n); puts_(&q, ")"); }
    else { puts_(&q, "pid "); puts_(&q, n); }
    puts_(&q, " asks to "); puts_(&q, acc.p); puts_(&q, " "); puts_(&q, path.p);
    json *pj = get(c, "path"), *rj = get(c, "resolved"); /* compared as sent, as TerminalPrompt compares them */
    int same = pj && rj && pj->t == J_STR && rj->t == J_STR ? pj->sn == rj->sn && !memcmp(pj->s, rj->s, pj->sn * sizeof *pj->s)
                                                           : !strcmp(path.p, res.p);
    if (!same) { puts_(&q, " (that is "); puts_(&q, res.p); puts_(&q, ")"); }
    puts_(&q, ", which the policy refuses.\nmagus: [o] allow once  [r] allow for this run  [d] deny? ");
    const char *word = "deny";
    int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (tty < 0) {
        if (write(2, q.p, q.n) < 0) { /* nowhere to say it */ }
        line("(no terminal to ask on: denied)");
    } else {
        if (write(tty, q.p, q.n) < 0) { /* the answer still decides */ }
        struct timespec now, end;
        clock_gettime(CLOCK_MONOTONIC, &end);
        long long within = ms && ms->t == J_NUM && ms->num >= 1 ? (long long) ms->num : 1;
        end.tv_sec += within / 1000; end.tv_nsec += (within % 1000) * 1000000L;
        if (end.tv_nsec >= 1000000000L) { end.tv_sec++; end.tv_nsec -= 1000000000L; }
        buf a = {0}; int answered = 0, signalled = 0; char ch;
        puts_(&a, "");
        for (;;) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            long long left = (end.tv_sec - now.tv_sec) * 1000LL + (end.tv_nsec - now.tv_nsec) / 1000000L;
            if (left <= 0) break;
            /* A signal forwarded meanwhile (Ctrl-C at the question) gives it up: the main loop sends it. */
            struct pollfd p[2] = {{tty, POLLIN, 0}, {sigpipe_fds[0], POLLIN, 0}};
            int r = poll(p, 2, (int) (left > 60000 ? 60000 : left));
            if (r < 0 && errno == EINTR) continue;
            if (r >= 0 && (p[1].revents & POLLIN)) { signalled = 1; break; }
            if (r < 0) break;
            if (r == 0) continue;
            if (read(tty, &ch, 1) != 1) break;
            if (ch == '\n') { answered = 1; break; }
            put(&a, &ch, 1);
        }
        if (answered) {
            char *s = a.p; while (*s && (unsigned char) *s <= ' ') s++; /* String.strip, lower-cased */
            size_t k = strlen(s); while (k > 0 && (unsigned char) s[k - 1] <= ' ') k--;
            s[k] = 0;
            for (char *t = s; *t; t++) if (*t >= 'A' && *t <= 'Z') *t += 'a' - 'A';
            if (!strcmp(s, "o") || !strcmp(s, "once")) word = "once";
            else if (!strcmp(s, "r") || !strcmp(s, "run")) word = "run";
        }
        const char *said = !answered ? "(no answer: denied)\n" : !strcmp(word, "deny") ? "magus: denied\n" : "";
        if (write(tty, said, strlen(said)) < 0) { /* said or not, it is denied */ }
        close(tty);
        free(a.p);
        /* The signal reaches the run before the decision does, while the asking call still waits:
           Ctrl-C at a question stops the run, as locally, rather than deny and let it go on. */
        if (signalled) forward_signals();
    }
    char m[96];
    int k = snprintf(m, sizeof m, "{\"type\":\"decision\",\"id\":%lld,\"decision\":\"%s\"}",
                     id && id->t == J_NUM ? (long long) id->num : 0LL, word);
    send_frame_soft(K_JSON, m, (size_t) k, 1); /* a run that ended: its exit is still to read */
    free(q.p); free(proc.p); free(path.p); free(res.p); free(acc.p);
}

/* Each signal caught since the last call, as a signal frame to the run's group. */
static void forward_signals(void) {
    unsigned char s;
    while (read(sigpipe_fds[0], &s, 1) == 1) {
        char m[48]; int n = snprintf(m, sizeof m, "{\"type\":\"signal\",\"signal\":%d}", s);
        send_frame_soft(K_JSON, m, (size_t) n, 1); /* a run that ended: its exit is still to read */
    }
}

static void on_signal(int sig) {
    unsigned char s = (unsigned char) sig;
    int saved = errno;
    if (write(sigpipe_fds[1], &s, 1) < 0) { /* full: the signal is already pending */ }
    errno = saved;
}

/* ---------- no server there (AutoStart) ---------- */
static int nonempty(const char *s) { return s && *s; }

/* Activation.awaitToken: a socket with no token beside it that accepts a connection is systemd's
   socket activation (magus.socket); the connection starts the server, which writes its token before
   it serves. Waits for it while the socket is there and the connection open (a server that failed
   to start closes it); the connection is the run's. */
static int await_token(const char *socket_path, const char *token_file) {
    struct sockaddr_un sa = {0};
    sa.sun_family = AF_UNIX;
    if (strlen(socket_path) >= sizeof sa.sun_path) return 0;
    strcpy(sa.sun_path, socket_path);
    sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0) return 0;
    if (connect(sock, (struct sockaddr *) &sa, sizeof sa)) { close(sock); sock = -1; return 0; }
    struct stat st;
    for (int i = 0; i < 3000 && !lstat(socket_path, &st); i++) { /* Activation.WITHIN: 30 s */
        if (!access(token_file, F_OK)) return 1;
        struct pollfd p = {sock, POLLIN, 0}; /* nothing comes before the hello: readable is closed */
        if (poll(&p, 1, 10) > 0) break;
    }
    close(sock); sock = -1;
    return 0;
}

/* Nobody answers at dir: the Java command line decides, which starts the user's server in a login
   session (AutoStart) and knows whether this run may. */
static void nobody_there(void) { fallback(0); }

/* Where this binary is bin/magus (cli's build copies it there when it made it), it is the front
   of every magus command, and its fallback is libexec/magus-jvm of the same installation (bash,
   which starts the JVM). Named magus-client, it is the client alone, given its fallback. */
static char *front_argv[2];
static int front(const char *argv0) {
    static char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) exe[n] = 0;
    else if (strchr(argv0, '/')) { if (!realpath(argv0, exe)) return 0; } /* no /proc: the path it was started by */
    else { /* or the one PATH gave it by */
        const char *path = getenv("PATH");
        int found = 0;
        while (path && *path && !found) {
            const char *end = strchr(path, ':');
            size_t len = end ? (size_t) (end - path) : strlen(path);
            buf candidate = {0};
            if (len) put(&candidate, path, len); else puts_(&candidate, ".");
            puts_(&candidate, "/"); puts_(&candidate, argv0);
            found = !access(candidate.p, X_OK) && realpath(candidate.p, exe);
            free(candidate.p);
            path = end ? end + 1 : NULL;
        }
        if (!found) return 0;
    }
    char *slash = strrchr(exe, '/');
    if (!slash || !strcmp(slash + 1, "magus-client")) return 0;
    *slash = 0;
    buf jvm = {0};
    const char *up = strrchr(exe, '/');
    if (up && !strcmp(up + 1, "bin")) put(&jvm, exe, (size_t) (up - exe));
    else { puts_(&jvm, exe); puts_(&jvm, "/.."); }
    puts_(&jvm, "/libexec/magus-jvm");
    front_argv[0] = "bash";
    front_argv[1] = jvm.p;
    return 1;
}

int main(int argc, char **argv) {
    /* A closed standard input stays an empty one: /dev/null in its place, before anything here
       (the socket) or in the JVM of a fallback (its class image) is opened as descriptor 0 and
       read as the child's input. */
    if (fcntl(0, F_GETFD) < 0 && errno == EBADF) {
        int fd = open("/dev/null", O_RDONLY);
        if (fd > 0) close(fd);
    }
    int is_front = front(argc > 0 ? argv[0] : "");
    if (is_front) {
        java_argv = front_argv;
        java_argc = 2;
        user_argv = argv + 1;
        user_argc = argc - 1;
        /* What the JVM's side handed back (it never comes back here), and the Java client asked for. */
        const char *client = getenv("MAGUS_CLIENT");
        if (nonempty(getenv("MAGUS_NATIVE_FELL_BACK")) || (client && !strcmp(client, "java"))) fallback(0);
    } else {
        if (argc < 2) { fprintf(stderr, "usage: magus-client N JAVA-ARGV... ARGS...\n"); return 125; }
        java_argc = atoi(argv[1]);
        if (java_argc < 1 || java_argc > argc - 2) { fprintf(stderr, "magus-client: a java command of %s words?\n", argv[1]); return 125; }
        java_argv = argv + 2;
        user_argv = argv + 2 + java_argc;
        user_argc = argc - 2 - java_argc;
    }

    /* Only run and target are the server's: anything else goes to the full command line. The
       words themselves are the server's to read, with the command line's own model: this client
       reads no option of them. */
    if (user_argc < 1 || (strcmp(user_argv[0], "run") && strcmp(user_argv[0], "target"))) fallback(0);
    /* Under MAGUS_SERVER=off every run is the full command line's, as with --local. */
    const char *server_setting = getenv("MAGUS_SERVER");
    if (server_setting && !strcmp(server_setting, "off")) fallback(0);
    /* A --local among magus's own words (up to --) is never sent: the JVM's side reads them
       exactly and runs it there, and no server is woken for it (socket activation). A word that
       only looks like it (an option's value) goes there too, and is forwarded from there. */
    if (is_front) {
        for (int i = 1; i < user_argc && strcmp(user_argv[i], "--"); i++)
            if (!strcmp(user_argv[i], "--local")) fallback(0);
    }
    /* bash, which starts the JVM on the other path, hands it SHLVL as it leaves it: a number
       raised by one at its start and lowered again by its exec (not a number, below 0: 0; from
       999 up: 0), written plainly. The same here, so that a forwarded run's environment is the
       local run's. */
    if (is_front) {
        const char *lvl = getenv("SHLVL");
        long n = 0;
        if (lvl) {
            char *end;
            while (*lvl == ' ' || *lvl == '\t' || *lvl == '\n') lvl++;
            errno = 0;
            n = strtol(lvl, &end, 10);
            while (*end == ' ' || *end == '\t' || *end == '\n') end++;
            if (end == lvl || *end || errno) n = 0;
        }
        n = n + 1 < 0 ? 0 : n + 1 >= 1000 ? 1 : n + 1;
        n = n - 1 < 0 ? 0 : n - 1;
        char text[24];
        snprintf(text, sizeof text, "%ld", n);
        setenv("SHLVL", text, 1);
    }
    /* And PWD, as bash sets it before it starts the JVM: kept where it names this directory,
       else what getcwd says. */
    if (is_front) {
        const char *pwd = getenv("PWD");
        struct stat named, here;
        if (!pwd || pwd[0] != '/' || stat(pwd, &named) || stat(".", &here) || named.st_dev != here.st_dev
                || named.st_ino != here.st_ino) {
            char *cwd = getcwd(NULL, 0);
            if (cwd) setenv("PWD", cwd, 1);
            free(cwd);
        }
    }

    /* ServerLocation.find and SocketDir.check. */
    const char *carried = getenv("MAGUS_PROC_TOKEN"), *address = getenv("MAGUS_SERVER_ADDRESS");
    buf dir = {0}, path = {0};
    size_t alen = address ? strlen(address) : 0;
    while (alen > 1 && address[alen - 1] == '/') alen--; /* Path.of drops a trailing slash */
    if (address && address[0] == '/' && alen > 1) {
        put(&path, address, alen);
        const char *slash = strrchr(path.p, '/');
        if (slash == path.p) puts_(&dir, "/"); else put(&dir, path.p, (size_t) (slash - path.p));
    } else {
        const char *rt = getenv("XDG_RUNTIME_DIR"), *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
        if (rt && rt[0] == '/') { puts_(&dir, rt); puts_(&dir, "/magus"); }
        else if (cache && cache[0] == '/') { puts_(&dir, cache); puts_(&dir, "/magus-run"); }
        else if (home && home[0] == '/') { puts_(&dir, home); puts_(&dir, "/.cache/magus-run"); }
        else { char t[64]; snprintf(t, sizeof t, "/tmp/magus-%ld", (long) geteuid()); puts_(&dir, t); }
        puts_(&path, dir.p); puts_(&path, "/server.sock");
    }
    char token[512];
    if (carried && *carried) {
        snprintf(token, sizeof token, "%s", carried);
    } else {
        buf tf = {0};
        puts_(&tf, path.p); puts_(&tf, ".token");
        int fd = open(tf.p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        struct stat st;
        if (fd < 0 && errno == ENOENT && !lstat(dir.p, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid()
            && !(st.st_mode & 077) && await_token(path.p, tf.p))
            fd = open(tf.p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0 && errno == ENOENT) nobody_there();
        if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) fallback(0);
        ssize_t r = read(fd, token, sizeof token - 1);
        close(fd);
        if (r < 0) fallback(0);
        token[r] = 0;
    }
    { /* String.trim */
        char *s = token; while (*s && (unsigned char) *s <= ' ') s++;
        size_t n = strlen(s); while (n > 0 && (unsigned char) s[n - 1] <= ' ') n--;
        memmove(token, s, n); token[n] = 0;
    }
    struct stat st;
    if (lstat(path.p, &st)) nobody_there();
    if (lstat(dir.p, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) fallback(0);
    struct sockaddr_un sa = {0};
    sa.sun_family = AF_UNIX;
    if (path.n >= sizeof sa.sun_path) fallback(0);
    memcpy(sa.sun_path, path.p, path.n);
    if (sock < 0) { /* else connected already, by await_token */
        sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (sock < 0) fallback(0);
        if (connect(sock, (struct sockaddr *) &sa, sizeof sa)) { close(sock); sock = -1; nobody_there(); } /* stale */
    }

    /* The hello and the run in one go: the server reads nothing after a hello it refuses, and
       the directory check above made sure the listener is this user's (one round trip less). */
    buf f = {0};
    puts_(&f, "{\"type\":\"hello\",\"version\":" XSTR(VERSION) ",\"token\":"); quote(&f, token); puts_(&f, "}");
    send_frame(K_JSON, f.p, f.n);
    f.n = 0;
    puts_(&f, "{\"type\":\"command\",\"args\":[");
    for (int k = 0; k < user_argc; k++) { if (k) puts_(&f, ","); quote(&f, user_argv[k]); }
    char *cwd = getcwd(NULL, 0);
    if (!cwd) lost(strerror(errno));
    puts_(&f, "],\"cwd\":"); quote(&f, cwd);
    puts_(&f, ",\"env\":{");
    int first = 1;
    for (char **e = environ; *e; e++) {
        char *eq = strchr(*e, '=');
        if (!eq || eq == *e) continue; /* as the JDK reads the environment */
        char *k = strndup(*e, (size_t) (eq - *e));
        if (!first) puts_(&f, ",");
        quote(&f, k); puts_(&f, ":"); quote(&f, eq + 1);
        free(k); first = 0;
    }
    /* Its standard input can go as a descriptor: the server says whether it takes one (Frame.Accepted). */
    puts_(&f, isatty(0) ? "},\"stdinFd\":true,\"stdinTerminal\":true" : "},\"stdinFd\":true");
    /* A controlling terminal to put a forwarded --ask's questions on. */
    int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (tty >= 0) close(tty);
    puts_(&f, tty >= 0 ? ",\"tty\":true}" : "}");
    /* A server that refuses the hello closes at once: its answer is still there to read. */
    int unsent = send_frame_soft(K_JSON, f.p, f.n, 1);
    size_t len;
    unsigned char *fr = read_frame(&len);
    json *answer = control(fr, len);
    if (is(get(answer, "type"), "refused")) {
        buf b = {0}; puts_(&b, "magus: the magus server refused this client: "); text(&b, get(answer, "message"));
        puts_(&b, "; running here instead"); line(b.p); fallback(1);
    }
    json *ver = get(answer, "version");
    if (!is(get(answer, "type"), "welcome") || !ver || ver->t != J_NUM || ver->num != VERSION) {
        buf b = {0}; puts_(&b, "magus: the magus server speaks another protocol ("); text(&b, ver);
        puts_(&b, ", this client " XSTR(VERSION) "); running here instead"); line(b.p); fallback(1);
    }
    welcomed = 1;
    if (unsent) lost(strerror(unsent));
    signal(SIGPIPE, SIG_IGN); /* a closed stdout is an EPIPE here, and that stream is dropped */

    int stdin_open = 0;
    for (;;) {
        while ((fr = next_frame(&len)) != NULL) {
            if (fr[0] == K_STDOUT) pass(1, &out_ok, fr + 1, len - 1);
            else if (fr[0] == K_STDERR) pass(2, &err_ok, fr + 1, len - 1);
            else if (fr[0] == K_JSON) {
                json *c = control(fr, len);
                json *type = get(c, "type");
                if (is(type, "declined")) {
                    /* No line for a run from inside a forwarded run: it runs here as it would have without a server. */
                    json *m = get(c, "message");
                    buf b = {0}; text(&b, m);
                    if (b.p && b.p[0]) { buf l = {0}; puts_(&l, "magus: "); puts_(&l, b.p); line(l.p); }
                    fallback(1);
                } else if (is(type, "refused")) {
                    buf b = {0}; puts_(&b, "magus: the magus server refused this client: "); text(&b, get(c, "message"));
                    puts_(&b, "; running here instead"); line(b.p); fallback(1);
                } else if (is(type, "local")) {
                    /* A command only the full command line serves (--local, --events, the live view): as given. */
                    buf b = {0}; text(&b, get(c, "message"));
                    if (b.p && b.p[0]) line(b.p);
                    fallback(0);
                } else if (is(type, "accepted")) {
                    /* The run starts: only now its stdin is sent (the server says whether it reads it), and
                       signals go to its group. Before, a command run here after all finds both untouched. */
                    if (pipe2(sigpipe_fds, O_CLOEXEC | O_NONBLOCK)) lost(strerror(errno));
                    struct sigaction sa2 = {0};
                    sa2.sa_handler = on_signal;
                    sigemptyset(&sa2.sa_mask);
                    sigaction(SIGINT, &sa2, NULL);
                    sigaction(SIGTERM, &sa2, NULL);
                    sigaction(SIGHUP, &sa2, NULL);
                    json *in_wanted = get(c, "stdin"), *as_fd = get(c, "stdinFd");
                    stdin_open = in_wanted && in_wanted->t == J_BOOL && in_wanted->num;
                    if (stdin_open && as_fd && as_fd->t == J_BOOL && as_fd->num) {
                        /* The child reads descriptor 0 itself (a terminal stays one); this client never reads it. */
                        int pass = passable_stdin();
                        if (send_stdin_fd(pass)) lost(strerror(errno));
                        if (pass) stdin_open = 0;
                    }
                } else if (is(type, "ask")) {
                    ask(c);
                } else if (is(type, "exit")) {
                    json *s = get(c, "status");
                    exit(status_of(s));
                }
                /* any other frame is ignored: the server writes magus's own lines on stderr */
                release(c);
            }
        }
        struct pollfd p[3] = {{sock, POLLIN, 0}, {sigpipe_fds[0], POLLIN, 0}, {stdin_open ? 0 : -1, POLLIN, 0}};
        if (poll(p, 3, -1) < 0) {
            if (errno == EINTR) continue;
            lost(strerror(errno));
        }
        if (p[1].revents & POLLIN) forward_signals();
        /* The socket first: a run that ended has sent its exit, which is read before stdin is
           offered to a server that has closed. */
        if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            if (!fill()) lost("the magus server closed the connection");
            continue;
        }
        /* Stdin frames are sent softly: a server that closed after the run's end has sent its exit,
           which the loop still reads; the rest of stdin is the child's no more, as locally. */
        if (p[2].revents & POLLNVAL) { send_frame_soft(K_JSON, "{\"type\":\"stdin-end\"}", 20, 1); stdin_open = 0; }
        else if (p[2].revents & (POLLIN | POLLHUP | POLLERR)) {
            char b[16384];
            ssize_t r = read(0, b, sizeof b);
            if (r > 0) { if (send_frame_soft(K_STDIN, b, (size_t) r, 1)) stdin_open = 0; }
            else if (r == 0) { send_frame_soft(K_JSON, "{\"type\":\"stdin-end\"}", 20, 1); stdin_open = 0; }
            else if (errno != EINTR && errno != EAGAIN) {
                /* An input that cannot be read (a directory, a terminal hung up) ends as it does for a
                   local run, and as in the Java client: the child reads its end. */
                send_frame_soft(K_JSON, "{\"type\":\"stdin-end\"}", 20, 1); stdin_open = 0;
            }
        }
    }
}
