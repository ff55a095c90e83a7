// MPI_Dims_create: a balanced grid of nnodes processes in ndims dimensions. The entries
// the caller set (> 0) stay; the zero ones get the factorisation of what is left that
// is as balanced as it can be, in non-increasing order: of all the ways to write it as a
// product of that many factors, sorted largest first, the lexicographically smallest
// (the smallest largest factor, then the smallest second, ...). So 12 in 2 gives 4x3,
// 24 in 3 gives 4x3x2 and 7 in 2 gives 7x1, as other implementations give.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "mpi/src/errors.h"
#include "mpi/src/export.h"
#include "mpi/src/objects.h"

using weft::mpi::mpi_call;
using weft::mpi::MpiError;

namespace {

// What balanced() searches: the divisors of n in increasing order, and n's prime
// factors in decreasing order.
struct Divisors {
  std::vector<int> divisors;
  std::vector<int> primes;

  explicit Divisors(int n) {
    std::vector<int> large;
    for (int d = 1; static_cast<int64_t>(d) * d <= n; ++d) {
      if (n % d != 0) continue;
      divisors.push_back(d);
      if (d != n / d) large.push_back(n / d);
    }
    divisors.insert(divisors.end(), large.rbegin(), large.rend());
    int m = n;
    for (int p = 2; static_cast<int64_t>(p) * p <= m; ++p) {
      if (m % p != 0) continue;
      primes.push_back(p);
      while (m % p == 0) m /= p;
    }
    if (m > 1) primes.push_back(m);
    std::reverse(primes.begin(), primes.end());
  }

  // The largest prime factor of m, a divisor of n (1 for 1).
  int largest_prime(int m) const {
    for (int p : primes) {
      if (m % p == 0) return p;
    }
    return 1;
  }
};

// The factorisation of `n` into `k` factors, none above `limit`, sorted largest first and
// lexicographically smallest, appended to `out`; false when there is none.
//
// For each position the factors are tried smallest first: the first that leaves a
// feasible rest gives the answer, since every factorisation that starts with a smaller
// one is impossible and every one starting with a larger one is larger.
bool balanced(int n, int k, int limit, const Divisors& d, std::vector<int>& out) {
  if (k == 0) return n == 1;
  if (d.largest_prime(n) > limit) return false;  // that prime fits in no factor
  for (int f : d.divisors) {
    if (f > limit) break;
    if (n % f != 0) continue;
    // The largest of k factors whose product is n is at least n^(1/k): f^k >= n.
    int64_t power = 1;
    for (int i = 0; i < k && power < n; ++i) power *= f;
    if (power < n) continue;
    out.push_back(f);
    if (balanced(n / f, k - 1, f, d, out)) return true;
    out.pop_back();
  }
  return false;
}

}  // namespace

extern "C" {

int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  return mpi_call("MPI_Dims_create", MPI_COMM_WORLD, [&] {
    weft::mpi::require_initialized("MPI_Dims_create");
    if (ndims < 0)
      throw MpiError(MPI_ERR_DIMS, "ndims = " + std::to_string(ndims) + " is negative");
    if (nnodes < 1) {
      throw MpiError(MPI_ERR_DIMS, "nnodes = " + std::to_string(nnodes) + " is not positive");
    }
    if (ndims > 0 && dims == nullptr) throw MpiError(MPI_ERR_ARG, "dims is a null pointer");
    int64_t fixed = 1;
    int free = 0;
    for (int i = 0; i < ndims; ++i) {
      if (dims[i] < 0) {
        throw MpiError(MPI_ERR_DIMS, "dims[" + std::to_string(i) +
                                         "] = " + std::to_string(dims[i]) + " is negative");
      }
      if (dims[i] == 0) {
        ++free;
      } else {
        fixed *= dims[i];
        if (fixed > nnodes) break;  // cannot divide nnodes; also keeps the product small
      }
    }
    if (fixed > nnodes || nnodes % fixed != 0) {
      throw MpiError(MPI_ERR_DIMS, "nnodes = " + std::to_string(nnodes) +
                                       " is not a multiple of the product of the nonzero "
                                       "entries of dims");
    }
    int rest = static_cast<int>(nnodes / fixed);
    if (free == 0) {
      if (rest != 1) {
        throw MpiError(MPI_ERR_DIMS,
                       "dims has no zero entry to fill, and the product of its "
                       "entries is not nnodes = " +
                           std::to_string(nnodes));
      }
      return;
    }
    std::vector<int> factors;
    balanced(rest, free, rest, Divisors(rest), factors);  // rest x 1 x ... x 1 always fits
    size_t next = 0;
    for (int i = 0; i < ndims; ++i) {
      if (dims[i] == 0) dims[i] = factors[next++];
    }
  });
}
WEFT_MPI_ALIAS(Dims_create)

}  // extern "C"
