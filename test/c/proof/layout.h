/*
** The on-disk layout of an encrypted temp file, decoded once for the tests
** (the proof library's spy and stress.c's checkvfs), independently of
** src/: with B-byte blocks, block k lies at k*B, nothing but its B bytes
** XOR the ChaCha20 keystream of the block's counter (nonce: the counter's
** 8 bytes, little-endian, then 4 zero bytes; the block's byte j uses
** ChaCha20 block j/64).  The counter is not on disk: the shim keeps it in
** memory, and the test build tells it (sqlite3_tempcrypt_test_block_counter).
** The keystream comes from the reference ChaCha20 (refchacha.c), not from
** the library's.
*/
#ifndef PROOF_LAYOUT_H
#define PROOF_LAYOUT_H
#include <stddef.h>
#include <stdint.h>

/* Offset of block k of B-byte blocks; the block holding offset off. */
int64_t layout_block_start(int B, int64_t k);
int64_t layout_block_of(int B, int64_t off);
/* out = in XOR the keystream of counter c from byte j of its block on, n
** bytes (in may be out). */
void layout_xor(unsigned char *out, const unsigned char *in, size_t n,
                const unsigned char key[32], uint64_t c, int64_t j);
#endif
