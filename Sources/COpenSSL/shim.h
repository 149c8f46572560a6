// OpenSSL's libcrypto, for what libolm does not offer: AES-256-CTR and SHA-256 of Matrix's
// encrypted attachments.
#include <openssl/evp.h>
#include <openssl/rand.h>
