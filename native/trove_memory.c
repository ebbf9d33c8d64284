/*
 * trove_memory: a Node-API addon a long-running Trove host loads to bound glibc malloc's arenas.
 *
 * glibc gives a thread that finds the shared arenas busy an arena of its own (up to 8 per core), and
 * memory freed into an arena stays there for that arena's next allocations. The host's threads -
 * the event loop, SQLite readers, ONNX Runtime's model workers, libuv's pool - each allocate and
 * free in bursts, so their arenas keep tens of MB that no other thread can reuse (bench/RESULTS.md,
 * issue 29: 25-35 MB of the host's RSS under load). And glibc raises its mmap threshold each time a
 * large block is freed, so after ONNX Runtime releases a session later large blocks come from the
 * arenas and stay there: ~65 MB more at the end of a load run. A fixed threshold keeps large blocks mapped on their own, returned when freed.
 * MALLOC_ARENA_MAX and MALLOC_MMAP_THRESHOLD_ do this from the environment, which `trove serve` does
 * not control; mallopt does it from inside, for what is allocated from then on.
 *
 * Memory freed between blocks still in use stays in the process too: glibc gives back only the free
 * top of a heap on its own. malloc_trim(0) hands every free page of every arena back (madvise), so
 * the host calls it every few seconds (trimMalloc): under reliability:load, 30-45 MB less at the end.
 *
 * Optional, like trove_rank: scripts/build-native.mjs builds it where a C compiler and Node's
 * headers are, and the host runs without it (at glibc's default) elsewhere.
 */
#include <node_api.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/*
 * tuneMalloc(arenas, mmapThreshold): true when glibc now makes at most `arenas` arenas and maps
 * blocks of `mmapThreshold` bytes or more on their own; false where this is not glibc.
 */
static napi_value tune_malloc(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  int32_t arenas = 0, threshold = 0;
  bool done = false;
  napi_value result;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2 ||
      napi_get_value_int32(env, argv[0], &arenas) != napi_ok || arenas < 1 ||
      napi_get_value_int32(env, argv[1], &threshold) != napi_ok || threshold < 4096) {
    napi_throw_type_error(env, NULL, "tuneMalloc(arenas, mmapThreshold) takes at least 1 arena and a threshold of at least 4096 bytes");
    return NULL;
  }
#if defined(__GLIBC__)
  done = mallopt(M_ARENA_MAX, arenas) == 1 && mallopt(M_MMAP_THRESHOLD, threshold) == 1;
#endif
  napi_get_boolean(env, done, &result);
  return result;
}

/* trimMalloc(): true when glibc gave memory back to the system; false when it had none to give, or this is not glibc. */
static napi_value trim_malloc(napi_env env, napi_callback_info info) {
  bool done = false;
  napi_value result;
  (void)info;
#if defined(__GLIBC__)
  done = malloc_trim(0) == 1;
#endif
  napi_get_boolean(env, done, &result);
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "trimMalloc", NAPI_AUTO_LENGTH, trim_malloc, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trimMalloc", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "tuneMalloc", NAPI_AUTO_LENGTH, tune_malloc, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "tuneMalloc", fn) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE(trove_memory, init)
