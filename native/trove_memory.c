/*
 * trove_memory: a Node-API addon a long-running Trove host loads to bound glibc malloc's arenas.
 *
 * glibc gives a thread that finds the shared arenas busy an arena of its own (up to 8 per core), and
 * memory freed into an arena stays there for that arena's next allocations. The host's threads -
 * the event loop, SQLite readers, ONNX Runtime's model workers, libuv's pool - each allocate and
 * free in bursts, so their arenas keep tens of MB that no other thread can reuse (bench/RESULTS.md,
 * issue 29: 25-35 MB of the host's RSS under load). MALLOC_ARENA_MAX does this from the environment,
 * which `trove serve` does not control; mallopt does it from inside, for arenas made from then on.
 *
 * Optional, like trove_rank: scripts/build-native.mjs builds it where a C compiler and Node's
 * headers are, and the host runs without it (at glibc's default) elsewhere.
 */
#include <node_api.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* capMallocArenas(n): true when glibc now makes at most n arenas; false where this is not glibc. */
static napi_value cap_malloc_arenas(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t n = 0;
  bool done = false;
  napi_value result;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, argv[0], &n) != napi_ok || n < 1) {
    napi_throw_type_error(env, NULL, "capMallocArenas(n) takes a whole number of arenas, at least 1");
    return NULL;
  }
#if defined(__GLIBC__)
  done = mallopt(M_ARENA_MAX, n) == 1;
#endif
  napi_get_boolean(env, done, &result);
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "capMallocArenas", NAPI_AUTO_LENGTH, cap_malloc_arenas, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "capMallocArenas", fn) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE(trove_memory, init)
