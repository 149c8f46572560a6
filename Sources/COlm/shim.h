#ifndef PARLEY_COLM_SHIM_H
#define PARLEY_COLM_SHIM_H
#include <stddef.h>
#include <stdint.h>
// olm.h also includes the Megolm (group session) headers and error.h.
#include <olm/olm.h>
// Cross-signing keys (ed25519 signing) and the sealed store of their seeds.
#include <olm/pk.h>

/// Overwrites `length` bytes at `memory` with zeros through a volatile pointer, so the stores
/// are not dropped as dead before the memory is freed: how ParleyCrypto wipes olm objects,
/// random bytes and pickle keys. (glibc's explicit_bzero needs feature macros a module header
/// cannot rely on.)
static inline void parley_olm_wipe(void *memory, size_t length) {
    volatile unsigned char *bytes = (volatile unsigned char *)memory;
    for (size_t i = 0; i < length; i++) {
        bytes[i] = 0;
    }
}
#endif
