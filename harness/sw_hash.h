/* sw_hash.h - SHA-256 of a file's content, for recording exactly which
 * programs a sweep ran (meta sha256:<name>) and refusing a --resume with
 * different ones.
 *
 * Invariants:
 *  - The digest is the standard SHA-256 (FIPS 180-4) of the file's bytes,
 *    as 64 lower-case hex digits: the same text sha256sum prints.
 *  - Never exits: a file that cannot be read is reported to the caller.
 */
#ifndef SW_HASH_H
#define SW_HASH_H

#include <stddef.h>

/* Hashes the file at path into hex (65 bytes: 64 digits and a NUL).
 * Returns 0, or -1 with errno set if it cannot be opened or read. */
int sw_sha256_file(const char *path, char hex[65]);

/* SHA-256 of len bytes at data, into hex (as above). */
void sw_sha256(const void *data, size_t len, char hex[65]);

#endif /* SW_HASH_H */
