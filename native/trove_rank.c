/*
** trove_rank: an SQLite extension adding the FTS5 ranking function trove_bm25().
**
** trove_bm25(fts, wTitle, wHeadings, wBody, k, nRow, nToken, nHit0, nHit1, ...) scores a row as
** FTS5's bm25(fts, wTitle, wHeadings, wBody) does, with two differences that only make it faster
** and one that makes it right after deletes.
**
** 1. The number of rows matching each phrase (nHitI, in the order the phrases appear in the
** MATCH expression) can be passed in.
** bm25() counts them itself on its first call of every query by walking each phrase's whole
** doclist: ~40 ns a row, 1.5 ms for a word in half of cpp-docs' 80k chunks, which was most of
** the time of a ranked keyword query. Trove's query planner already knows these counts (it
** reads them from fts5vocab and caches them), so the walk is wasted. A NULL (or missing) count
** is counted as bm25() would. The per-row frequencies use xPhraseFirst/xPhraseNext rather than
** the instance array bm25() builds across all phrases: the same sums, less work.
**
** 2. k, when given, is the LIMIT of the query's ORDER BY rank: only the best k rows matter. The
** row's length (xColumnSize, a %_docsize lookup: ~80% of the per-row cost) is only read when the
** row could still make the top k. A row's score can be no higher than with the shortest length
** it can have, and the positions of its matches bound that from below: a column holding a match
** of a phrase at token offset o is at least o + (the phrase's tokens) long. When even that bound
** is below the k-th best exact score seen so far, the row cannot be in the result and gets
** +1e300 (sorts last) instead. The k rows returned are exactly bm25()'s top k, with exactly its
** scores. (Where the query's words are everywhere, their matches run to near each row's end, so
** the bound is close to the score and few rows need their length read.)
**
** 3. nRow and nToken, when given (not NULL), are the index's true row count and total token
** count, used for BM25's N and average length instead of FTS5's totals record (xRowCount,
** xColumnTotalSize). Trove's tables are contentless_delete, and FTS5 never subtracts a
** contentless-deleted row from that record, so after edits it overcounts; the storage knows the
** true totals (store/fts-totals.ts). NULL: FTS5's record, as bm25().
**
** Built by scripts/build-native.mjs; the engine falls back to bm25() when it is missing.
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1
#include <math.h>
#include <string.h>

#define N_WEIGHTS 3
#define ARG_K N_WEIGHTS
#define ARG_ROWS (N_WEIGHTS + 1)
#define ARG_TOKENS (N_WEIGHTS + 2)
#define ARG_HITS (N_WEIGHTS + 3)
#define PRUNED 1e300
/* columns whose lengths bound a row's from below; a row's further columns only weaken the bound */
#define MAX_BOUND_COLUMNS 8

typedef struct RankData RankData;
struct RankData {
  int nPhrase;
  double avgdl;
  double *aIDF;
  double *aFreq;
  /* the best k exact scores so far, a min-heap (aTop[0] is the k-th best); k 0: no pruning */
  int k;
  int nTop;
  double *aTop;
  /* the last row scored: a row scored twice must not enter the heap twice */
  sqlite3_int64 lastRowid;
  double lastScore;
  int haveLast;
};

static int countCb(const Fts5ExtensionApi *pApi, Fts5Context *pFts, void *pUserData) {
  (void)pApi;
  (void)pFts;
  (*(sqlite3_int64 *)pUserData)++;
  return SQLITE_OK;
}

/* Whether argument i was passed and is not NULL; if so, its value in *p. */
static int givenInt(int nVal, sqlite3_value **apVal, int i, sqlite3_int64 *p) {
  if (i >= nVal || sqlite3_value_type(apVal[i]) == SQLITE_NULL) return 0;
  *p = sqlite3_value_int64(apVal[i]);
  return 1;
}

static int rankData(const Fts5ExtensionApi *pApi, Fts5Context *pFts, int nVal, sqlite3_value **apVal, RankData **pp) {
  int rc = SQLITE_OK;
  RankData *p = (RankData *)pApi->xGetAuxdata(pFts, 0);
  if (p == 0) {
    sqlite3_int64 nRow = 0, nToken = 0;
    int nPhrase = pApi->xPhraseCount(pFts);
    sqlite3_int64 k = ARG_K < nVal ? sqlite3_value_int64(apVal[ARG_K]) : 0;
    sqlite3_int64 nByte;
    int i;
    if (k < 0 || k > 1000000) k = 0; /* no (sensible) limit: score every row */
    nByte = sizeof(RankData) + ((sqlite3_int64)nPhrase * 2 + k) * sizeof(double);
    p = (RankData *)sqlite3_malloc64(nByte);
    if (p == 0) return SQLITE_NOMEM;
    memset(p, 0, (size_t)nByte);
    p->nPhrase = nPhrase;
    p->aIDF = (double *)&p[1];
    p->aFreq = &p->aIDF[nPhrase];
    p->k = (int)k;
    p->aTop = &p->aFreq[nPhrase];
    if (givenInt(nVal, apVal, ARG_ROWS, &nRow) == 0) rc = pApi->xRowCount(pFts, &nRow);
    if (rc == SQLITE_OK && givenInt(nVal, apVal, ARG_TOKENS, &nToken) == 0) rc = pApi->xColumnTotalSize(pFts, -1, &nToken);
    if (rc == SQLITE_OK) p->avgdl = nRow > 0 ? (double)nToken / (double)nRow : 1.0;
    for (i = 0; rc == SQLITE_OK && i < nPhrase; i++) {
      sqlite3_int64 nHit = 0;
      if (givenInt(nVal, apVal, ARG_HITS + i, &nHit) == 0) rc = pApi->xQueryPhrase(pFts, i, (void *)&nHit, countCb);
      if (rc == SQLITE_OK) {
        /* the same IDF as bm25(), floor included */
        double idf = log((nRow - nHit + 0.5) / (nHit + 0.5));
        p->aIDF[i] = idf <= 0.0 ? 1e-6 : idf;
      }
    }
    if (rc == SQLITE_OK) rc = pApi->xSetAuxdata(pFts, p, sqlite3_free);
    else sqlite3_free(p);
    if (rc != SQLITE_OK) return rc;
  }
  *pp = p;
  return rc;
}

/* Keeps the k best scores: a min-heap, so aTop[0] is the bar a row must clear. */
static void topPush(RankData *p, double score) {
  double *h = p->aTop;
  int i;
  if (p->nTop < p->k) {
    for (i = p->nTop++; i > 0 && h[(i - 1) / 2] > score; i = (i - 1) / 2) h[i] = h[(i - 1) / 2];
    h[i] = score;
    return;
  }
  if (score <= h[0]) return;
  for (i = 0;;) {
    int c = 2 * i + 1;
    if (c >= p->k) break;
    if (c + 1 < p->k && h[c + 1] < h[c]) c++;
    if (h[c] >= score) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = score;
}

static double bm25Score(const RankData *p, double dl) {
  const double k1 = 1.2, b = 0.75;
  double score = 0.0;
  int i;
  for (i = 0; i < p->nPhrase; i++) {
    double f = p->aFreq[i];
    score += p->aIDF[i] * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + b * dl / p->avgdl)));
  }
  return score;
}

static void troveBm25(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx, int nVal, sqlite3_value **apVal) {
  double weight[N_WEIGHTS];
  double score;
  RankData *p = 0;
  int i, nTok = 0, nShortest = 0;
  int aColEnd[MAX_BOUND_COLUMNS] = {0}; /* per column, where its last match seen ends: its length is no less */
  sqlite3_int64 rowid;
  int rc = rankData(pApi, pFts, nVal, apVal, &p);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(pCtx, rc);
    return;
  }
  rowid = pApi->xRowid(pFts);
  if (p->haveLast && rowid == p->lastRowid) {
    sqlite3_result_double(pCtx, p->lastScore);
    return;
  }
  for (i = 0; i < N_WEIGHTS; i++) weight[i] = i < nVal ? sqlite3_value_double(apVal[i]) : 1.0;
  for (i = 0; rc == SQLITE_OK && i < p->nPhrase; i++) {
    Fts5PhraseIter it;
    int iCol = 0, iOff = 0;
    int nTokens = pApi->xPhraseSize(pFts, i);
    double f = 0.0;
    rc = pApi->xPhraseFirst(pFts, i, &it, &iCol, &iOff);
    while (rc == SQLITE_OK && iCol >= 0) {
      f += iCol < N_WEIGHTS ? weight[iCol] : 1.0;
      if (iCol < MAX_BOUND_COLUMNS && iOff + nTokens > aColEnd[iCol]) aColEnd[iCol] = iOff + nTokens;
      pApi->xPhraseNext(pFts, &it, &iCol, &iOff);
    }
    p->aFreq[i] = f;
  }
  for (i = 0; i < MAX_BOUND_COLUMNS; i++) nShortest += aColEnd[i];
  /* the score falls as the row gets longer, and the row has at least nShortest tokens */
  if (rc == SQLITE_OK && p->k > 0 && p->nTop == p->k && bm25Score(p, (double)nShortest) < p->aTop[0]) {
    score = PRUNED;
  } else {
    if (rc == SQLITE_OK) rc = pApi->xColumnSize(pFts, -1, &nTok);
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(pCtx, rc);
      return;
    }
    score = bm25Score(p, (double)nTok);
    if (p->k > 0) topPush(p, score);
    score = -1.0 * score;
  }
  p->haveLast = 1;
  p->lastRowid = rowid;
  p->lastScore = score;
  sqlite3_result_double(pCtx, score);
}

static fts5_api *fts5Api(sqlite3 *db) {
  fts5_api *pRet = 0;
  sqlite3_stmt *pStmt = 0;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &pStmt, 0) == SQLITE_OK) {
    sqlite3_bind_pointer(pStmt, 1, (void *)&pRet, "fts5_api_ptr", 0);
    sqlite3_step(pStmt);
  }
  sqlite3_finalize(pStmt);
  return pRet;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_troverank_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  fts5_api *fts;
  SQLITE_EXTENSION_INIT2(pApi);
  fts = fts5Api(db);
  if (fts == 0 || fts->iVersion < 2) {
    *pzErrMsg = sqlite3_mprintf("trove_rank: FTS5 is not available");
    return SQLITE_ERROR;
  }
  return fts->xCreateFunction(fts, "trove_bm25", 0, troveBm25, 0);
}
