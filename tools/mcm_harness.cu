// Standalone launcher of the matching kernels (no JAX): runs the fused and
// stepped solvers on small graphs, checks the result on the host, and, if a
// launch does not finish in 3 s, dumps the state copied on a second stream.
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <chrono>
#include <vector>

#include <cuda_runtime.h>

#include "cuda/mcm_kernels.h"

using namespace jaxmatch;

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(2);} } while (0)

struct Graph { int nr, nc; std::vector<int> cx, ca; };

static void dump(const std::vector<int>& st, int nr, int nc) {
  McmLayout L(nr, nc);
  printf("  scalars:");
  for (int k = 0; k < 12; ++k) printf(" %d", st[k]);
  printf("\n  rmatch:");
  for (int r = 0; r < nr && r < 16; ++r) printf(" %d", st[L.rmatch + r]);
  printf("\n  cmatch:");
  for (int c = 0; c < nc && c < 16; ++c) printf(" %d", st[L.cmatch + c]);
  printf("\n  bfs:");
  for (int c = 0; c < nc && c < 16; ++c) printf(" %d", st[L.bfs + c]);
  printf("\n  pred:");
  for (int r = 0; r < nr && r < 16; ++r) printf(" %d", st[L.pred + r]);
  printf("\n  root:");
  for (int c = 0; c < nc && c < 16; ++c) printf(" %d", st[L.root + c]);
  printf("\n  queue:");
  for (int c = 0; c < nc && c < 16; ++c) printf(" %d", st[L.queue + c]);
  printf("\n");
}

static bool wait_or_dump(cudaStream_t s, cudaStream_t side, int* d_state, size_t len, int nr, int nc, const char* what) {
  for (int i = 0; i < 300; ++i) {
    if (cudaStreamQuery(s) == cudaSuccess) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  printf("HANG in %s; state:\n", what);
  std::vector<int> st(len);
  CK(cudaMemcpyAsync(st.data(), d_state, len * 4, cudaMemcpyDeviceToHost, side));
  CK(cudaStreamSynchronize(side));
  dump(st, nr, nc);
  return false;
}

int main() {
  cudaStream_t s, side;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  std::vector<Graph> gs;
  gs.push_back({1, 1, {0, 1}, {0}});
  gs.push_back({2, 2, {0, 2, 4}, {0, 1, 0, 1}});
  std::mt19937 rng(1);
  for (int t = 0; t < 20; ++t) {
    Graph g; g.nr = 5 + rng() % 40; g.nc = 5 + rng() % 40; g.cx = {0};
    for (int c = 0; c < g.nc; ++c) { for (int r = 0; r < g.nr; ++r) if (rng() % 10 == 0) g.ca.push_back(r); g.cx.push_back(g.ca.size()); }
    if (g.ca.empty()) g.ca.push_back(0);
    gs.push_back(g);
  }
  int bad = 0;
  for (size_t gi = 0; gi < gs.size(); ++gi) {
    Graph& g = gs[gi];
    McmLayout L(g.nr, g.nc);
    int *d_cx, *d_ca, *d_st, *d_rm, *d_cm;
    CK(cudaMalloc(&d_cx, g.cx.size() * 4)); CK(cudaMalloc(&d_ca, g.ca.size() * 4));
    CK(cudaMalloc(&d_st, L.len * 4)); CK(cudaMalloc(&d_rm, g.nr * 4)); CK(cudaMalloc(&d_cm, g.nc * 4));
    CK(cudaMemcpy(d_cx, g.cx.data(), g.cx.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_ca, g.ca.data(), g.ca.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_rm, 0xff, g.nr * 4)); CK(cudaMemset(d_cm, 0xff, g.nc * 4));
    McmProblem p{1, g.nr, g.nc, (int)g.ca.size(), (int64_t)L.len, d_cx, d_ca, d_st};
    for (int shape = 0; shape < 2; ++shape)
      for (int drv = 0; drv < 2; ++drv)
        for (int bfs = 0; bfs < 2; ++bfs)
          for (int init = 0; init < 2; ++init) {
            McmOptions o{drv, bfs, std::min(g.nr, g.nc) + 1};
            char what[128];
            snprintf(what, sizeof what, "graph %zu (%dx%d) %s drv %d bfs %d init %d", gi, g.nr, g.nc, shape ? "stepped" : "fused", drv, bfs, init);
            bool ok = true;
            if (shape == 0) {
              CK(LaunchMcmSolve(s, p, init, d_rm, d_cm, o));
              ok = wait_or_dump(s, side, d_st, L.len, g.nr, g.nc, what);
            } else {
              CK(LaunchMcmInit(s, p, init, d_rm, d_cm));
              ok = wait_or_dump(s, side, d_st, L.len, g.nr, g.nc, what);
              for (int call = 0; ok && call < 1000; ++call) {
                int status = 0;
                CK(cudaMemcpy(&status, d_st, 4, cudaMemcpyDeviceToHost));
                if (status != 0) break;
                CK(LaunchMcmStep(s, p, o, call % 2, 3));
                ok = wait_or_dump(s, side, d_st, L.len, g.nr, g.nc, what);
              }
            }
            if (!ok) { ++bad; return 1; }
            std::vector<int> st(L.len);
            CK(cudaMemcpy(st.data(), d_st, L.len * 4, cudaMemcpyDeviceToHost));
            int card = 0, valid = st[0] == 1;
            for (int r = 0; r < g.nr; ++r) { int c = st[L.rmatch + r]; if (c >= 0) { ++card; if (st[L.cmatch + c] != r) valid = 0; } }
            if (!valid) { printf("INVALID %s\n", what); dump(st, g.nr, g.nc); ++bad; }
          }
    cudaFree(d_cx); cudaFree(d_ca); cudaFree(d_st); cudaFree(d_rm); cudaFree(d_cm);
  }
  printf("mcm_harness: %s (%d bad)\n", bad ? "FAILED" : "OK", bad);
  return bad ? 1 : 0;
}
