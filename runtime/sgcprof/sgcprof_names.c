/* sgcprof_names.c - the one escaping of names in sgcprof's exports
 * (invariants: sgcprof_names.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../contracts/ct_alloc.h"
#include "sgcprof_names.h"

/* Length of the valid UTF-8 sequence of a code point >= 0x80 starting at
 * s, or 0 if the bytes there are not one. */
static size_t utf8_len(const unsigned char *s) {
    unsigned c = s[0];
    size_t n;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0; /* also stops at the terminating NUL */
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

char *sgcprof_escape(const char *raw, int folded) {
    const unsigned char *s = (const unsigned char *)raw;
    size_t n = strlen(raw);
    char *out = ct_xmalloc(4 * n + 1), *o = out;
    while (*s) {
        unsigned c = *s;
        if (c >= 0x80) {
            size_t k = utf8_len(s);
            if (k) {
                memcpy(o, s, k);
                o += k;
                s += k;
                continue;
            }
        }
        s++;
        if (c == '\\') {
            *o++ = '\\';
            *o++ = '\\';
        } else if (c == '\n') {
            *o++ = '\\';
            *o++ = 'n';
        } else if (c == '\t') {
            *o++ = '\\';
            *o++ = 't';
        } else if (c == '\r') {
            *o++ = '\\';
            *o++ = 'r';
        } else if (c < 0x20 || c >= 0x7f || (folded && (c == ';' || c == ' '))) {
            o += sprintf(o, "\\x%02x", c);
        } else {
            *o++ = (char)c;
        }
    }
    *o = 0;
    return out;
}
