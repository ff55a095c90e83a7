/*
 * type_layouts.c - MPI_Type_create_subarray, MPI_Type_create_darray and the external32
 * representation (MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size).
 *
 * Checks, on every rank:
 *   1. Subarrays of a 3-D array in C and Fortran order pack exactly the elements a
 *      serial loop over the block visits, in that order; lb 0, the whole array's extent.
 *   2. Darrays over a 2x3 process grid (block, cyclic with and without a block size,
 *      none; C and Fortran order), built for every rank of the grid: each packs the
 *      elements a serial owner computation gives it, in memory order, and together the
 *      ranks cover the array exactly once.
 *   3. external32 byte images, byte for byte: big-endian ints, doubles, a C long in 4
 *      bytes, a long double as IEEE binary128, a float complex, a struct with padding
 *      and MPI_DOUBLE_INT; round trips through MPI_Unpack_external; the sizes; an
 *      unknown datarep is MPI_ERR_UNSUPPORTED_DATAREP; a long that does not fit 4 bytes
 *      is MPI_ERR_CONVERSION.
 */
#define PROGRAM "type_layouts"
#include <complex.h>
#include <string.h>

#include "check.h"

#define EXPECT_CLASS(call, cls)                                                           \
  do {                                                                                    \
    int rc_ = (call), class_ = -1;                                                        \
    MPI_Error_class(rc_, &class_);                                                        \
    if (class_ != (cls)) fail("%s: got error class %d, expected %d", #call, class_, cls); \
  } while (0)

/* Packs one element of `t` from `array` (array[i] == i) and compares with `expected`. */
static void expect_packed(const char *what, MPI_Datatype t, const int *array, const int *expected,
                          int n) {
  int size;
  CHECK_MPI(MPI_Type_size(t, &size));
  EXPECT_INT(what, size, n * (int)sizeof(int));
  int *packed = xmalloc((size_t)n * sizeof(int) + 1);
  int position = 0;
  CHECK_MPI(MPI_Pack(array, 1, t, packed, size, &position, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i) {
    if (packed[i] != expected[i])
      fail("%s: packed element %d is %d, expected %d", what, i, packed[i], expected[i]);
  }
  free(packed);
}

static void test_subarray(const int *array) {
  int sizes[] = {4, 5, 6}, subsizes[] = {2, 3, 2}, starts[] = {1, 1, 3};
  int expected[12], n = 0;
  MPI_Datatype t;
  MPI_Aint lb, extent;

  CHECK_MPI(MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) expected[n++] = ((1 + i) * 5 + (1 + j)) * 6 + (3 + k);
  expect_packed("subarray (C order)", t, array, expected, 12);
  CHECK_MPI(MPI_Type_get_extent(t, &lb, &extent));
  EXPECT_INT("subarray: lb", lb, 0);
  EXPECT_INT("subarray: extent", extent, 120 * sizeof(int));
  CHECK_MPI(MPI_Type_free(&t));

  n = 0;
  CHECK_MPI(MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i) expected[n++] = (1 + i) + 4 * ((1 + j) + 5 * (3 + k));
  expect_packed("subarray (Fortran order)", t, array, expected, 12);
  CHECK_MPI(MPI_Type_get_extent(t, &lb, &extent));
  EXPECT_INT("subarray (Fortran): extent", extent, 120 * sizeof(int));
  CHECK_MPI(MPI_Type_free(&t));

  int bad_starts[] = {3, 0, 0};
  EXPECT_CLASS(MPI_Type_create_subarray(3, sizes, subsizes, bad_starts, MPI_ORDER_C, MPI_INT, &t),
               MPI_ERR_ARG);
}

/* The process coordinate owning global index i of a dimension. */
static int owner(int i, int gsize, int distrib, int darg, int psize) {
  if (distrib == MPI_DISTRIBUTE_NONE) return 0;
  if (distrib == MPI_DISTRIBUTE_BLOCK) {
    int block = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
    return i / block;
  }
  int block = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
  return (i / block) % psize;
}

static void test_darray(const int *array) {
  enum { G0 = 7, G1 = 10 };
  struct {
    int distribs[2], dargs[2], psizes[2];
  } cases[] = {
      {{MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC}, {MPI_DISTRIBUTE_DFLT_DARG, 2}, {2, 3}},
      {{MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
       {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG},
       {2, 3}},
      {{MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK}, {3, 5}, {3, 2}},
      {{MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC}, {MPI_DISTRIBUTE_DFLT_DARG, 3}, {1, 6}},
  };
  int gsizes[] = {G0, G1};
  for (int c = 0; c < 4; ++c) {
    for (int order = 0; order < 2; ++order) {
      int mpi_order = order ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
      int covered[G0 * G1] = {0};
      for (int rank = 0; rank < 6; ++rank) {
        int coords[2] = {rank / cases[c].psizes[1], rank % cases[c].psizes[1]};
        int expected[G0 * G1], n = 0;
        for (int outer = 0; outer < (order ? G1 : G0); ++outer) {
          for (int inner = 0; inner < (order ? G0 : G1); ++inner) {
            int i = order ? inner : outer, j = order ? outer : inner;
            if (owner(i, G0, cases[c].distribs[0], cases[c].dargs[0], cases[c].psizes[0]) ==
                    coords[0] &&
                owner(j, G1, cases[c].distribs[1], cases[c].dargs[1], cases[c].psizes[1]) ==
                    coords[1]) {
              int idx = order ? i + G0 * j : i * G1 + j;
              expected[n++] = idx;
              covered[idx]++;
            }
          }
        }
        MPI_Datatype t;
        CHECK_MPI(MPI_Type_create_darray(6, rank, 2, gsizes, cases[c].distribs, cases[c].dargs,
                                         cases[c].psizes, mpi_order, MPI_INT, &t));
        CHECK_MPI(MPI_Type_commit(&t));
        char what[96];
        snprintf(what, sizeof what, "darray case %d, %s order, rank %d", c, order ? "F" : "C",
                 rank);
        expect_packed(what, t, array, expected, n);
        MPI_Aint lb, extent;
        CHECK_MPI(MPI_Type_get_extent(t, &lb, &extent));
        EXPECT_INT(what, extent, G0 * G1 * sizeof(int));
        CHECK_MPI(MPI_Type_free(&t));
      }
      for (int k = 0; k < G0 * G1; ++k)
        EXPECT_INT("darray: ranks cover each element once", covered[k], 1);
    }
  }
  int distribs[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK}, dargs[] = {2, 2},
      psizes[] = {2, 3};
  MPI_Datatype t;
  EXPECT_CLASS(
      MPI_Type_create_darray(6, 0, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &t),
      MPI_ERR_ARG);
}

static void expect_bytes(const char *what, const unsigned char *got, const unsigned char *exp,
                         int n) {
  for (int i = 0; i < n; ++i) {
    if (got[i] != exp[i]) fail("%s: byte %d is 0x%02x, expected 0x%02x", what, i, got[i], exp[i]);
  }
}

/* Packs `count` of `t` from `in` in external32, compares with `image`, unpacks into
 * `out` and compares `bytes` bytes of it with `in`. */
static void round_trip(const char *what, const void *in, void *out, size_t bytes, int count,
                       MPI_Datatype t, const unsigned char *image, int n) {
  unsigned char packed[256];
  MPI_Aint position = 0, size;
  CHECK_MPI(MPI_Pack_external_size("external32", count, t, &size));
  EXPECT_INT(what, size, n);
  CHECK_MPI(MPI_Pack_external("external32", in, count, t, packed, sizeof packed, &position));
  EXPECT_INT(what, position, n);
  expect_bytes(what, packed, image, n);
  position = 0;
  CHECK_MPI(MPI_Unpack_external("external32", packed, n, &position, out, count, t));
  EXPECT_INT(what, position, n);
  if (memcmp(in, out, bytes) != 0) fail("%s: the round trip changed the data", what);
}

static void test_external32(void) {
  int ints[2] = {1, -2}, ints_back[2];
  unsigned char ints_image[] = {0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFE};
  round_trip("external32 int", ints, ints_back, sizeof ints, 2, MPI_INT, ints_image, 8);

  double d = 1.0, d_back;
  unsigned char d_image[] = {0x3F, 0xF0, 0, 0, 0, 0, 0, 0};
  round_trip("external32 double", &d, &d_back, sizeof d, 1, MPI_DOUBLE, d_image, 8);

  long l[2] = {5, -3}, l_back[2];
  unsigned char l_image[] = {0, 0, 0, 5, 0xFF, 0xFF, 0xFF, 0xFD};
  round_trip("external32 long (4 bytes)", l, l_back, sizeof l, 2, MPI_LONG, l_image, 8);

  long double ld = -1.0L, ld_back;
  unsigned char ld_image[16] = {0xBF, 0xFF};
  round_trip("external32 long double (binary128)", &ld, &ld_back, 10, 1, MPI_LONG_DOUBLE, ld_image,
             16);

  float _Complex z = 1.0f - 2.0f * I, z_back;
  unsigned char z_image[] = {0x3F, 0x80, 0, 0, 0xC0, 0, 0, 0};
  round_trip("external32 float complex", &z, &z_back, sizeof z, 1, MPI_C_FLOAT_COMPLEX, z_image, 8);

  struct {
    short s;
    double d;
  } st = {0x0102, 2.0}, st_back;
  memset(&st_back, 0, sizeof st_back);
  int bl[] = {1, 1};
  MPI_Aint disp[] = {0, 8};
  MPI_Datatype types[] = {MPI_SHORT, MPI_DOUBLE}, t;
  CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  unsigned char st_image[] = {1, 2, 0x40, 0, 0, 0, 0, 0, 0, 0};
  round_trip("external32 struct", &st.s, &st_back.s, sizeof st.s, 1, t, st_image, 10);
  if (st_back.d != 2.0) fail("external32 struct: the double came back as %g", st_back.d);
  CHECK_MPI(MPI_Type_free(&t));

  struct {
    double v;
    int i;
  } pair = {-2.0, 7}, pair_back;
  unsigned char pair_image[] = {0xC0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
  round_trip("external32 MPI_DOUBLE_INT", &pair, &pair_back, 12, 1, MPI_DOUBLE_INT, pair_image, 12);

  unsigned char buf[16];
  MPI_Aint position = 0, size;
  EXPECT_CLASS(MPI_Pack_external("native", ints, 1, MPI_INT, buf, 16, &position),
               MPI_ERR_UNSUPPORTED_DATAREP);
  EXPECT_CLASS(MPI_Pack_external_size("internal", 1, MPI_INT, &size), MPI_ERR_UNSUPPORTED_DATAREP);
  long big = 1L << 40;
  if (sizeof(long) == 8) {
    EXPECT_CLASS(MPI_Pack_external("external32", &big, 1, MPI_LONG, buf, 16, &position),
                 MPI_ERR_CONVERSION);
  }
  position = 0;
  EXPECT_CLASS(MPI_Pack_external("external32", ints, 2, MPI_INT, buf, 4, &position),
               MPI_ERR_TRUNCATE);
  MPI_Count csize;
  CHECK_MPI(MPI_Pack_external_size_c("external32", (MPI_Count)1 << 40, MPI_LONG, &csize));
  EXPECT_INT("MPI_Pack_external_size_c", csize, (MPI_Count)4 << 40);
}

int main(int argc, char **argv) {
  int size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &g_rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  int array[120];
  for (int i = 0; i < 120; ++i) array[i] = i;
  test_subarray(array);
  test_darray(array);
  test_external32();

  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  finalize_and_report(size);
  return 0;
}
