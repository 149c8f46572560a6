#ifndef PARLEY_CCURL_SHIM_H
#define PARLEY_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot
// call: one typed wrapper per argument type Parley passes.
typedef size_t (*parley_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode parley_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode parley_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode parley_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode parley_curl_setopt_callback(CURL *handle, CURLoption option, parley_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode parley_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLMcode parley_curl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}
#endif
