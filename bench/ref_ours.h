/* ref_ours.h: our core's timed loops for bench/ref_bench.cc (ref_ours.c). */
#ifndef REF_OURS_H
#define REF_OURS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

typedef struct Ours Ours;

extern Ours *ours_new(uint32_t num_buckets, uint32_t fp_bits);
extern void ours_free(Ours *o);
extern size_t ours_bytes(const Ours *o);
/* each returns ns per operation */
extern double ours_insert(Ours *o, const uint64_t *k, size_t n, size_t *failed);
extern double ours_lookup(const Ours *o, const uint64_t *k, size_t n, uint64_t *hits);
extern double ours_lookup_batched(const Ours *o, const uint64_t *k, size_t n, uint64_t *hits);
extern double ours_delete(Ours *o, const uint64_t *k, size_t n, uint64_t *missing);

#ifdef __cplusplus
}
#endif

#endif
