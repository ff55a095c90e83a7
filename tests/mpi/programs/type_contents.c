/*
 * type_contents.c - datatype decoding (MPI_Type_get_envelope/contents and their _c
 * forms), the lookup functions (MPI_Type_match_size, MPI_Type_create_f90_*,
 * MPI_Type_get_value_index) and large counts.
 *
 * Checks, on every rank:
 *   1. A predefined type's envelope is MPI_COMBINER_NAMED with no arguments, and
 *      MPI_Type_get_contents on it is MPI_ERR_TYPE.
 *   2. Every constructor's envelope and contents give back its arguments in the
 *      standard's order; a derived old type comes back as a new handle that decodes the
 *      same (and is freed by the caller), a predefined one as itself, even after the
 *      program freed the original old type.
 *   3. The _c constructors keep their counts and displacements as large counts (and
 *      MPI_Type_get_envelope refuses them with MPI_ERR_TYPE).
 *   4. MPI_Type_match_size, MPI_Type_create_f90_* (combiner and (p, r) in the contents,
 *      the same handle twice), MPI_Type_get_value_index.
 *   5. Large counts: a 12 GiB contiguous type's size (MPI_UNDEFINED from MPI_Type_size,
 *      exact from the _c and _x forms), MPI_Pack_size_c, extents beyond 2^31.
 */
#define PROGRAM "type_contents"
#include <string.h>

#include "check.h"

#define EXPECT_CLASS(call, cls)                                                           \
  do {                                                                                    \
    int rc_ = (call), class_ = -1;                                                        \
    MPI_Error_class(rc_, &class_);                                                        \
    if (class_ != (cls)) fail("%s: got error class %d, expected %d", #call, class_, cls); \
  } while (0)

static void expect_envelope(const char *what, MPI_Datatype t, int ni, int na, int nd,
                            int combiner) {
  int gi, ga, gd, gc;
  CHECK_MPI(MPI_Type_get_envelope(t, &gi, &ga, &gd, &gc));
  char buf[128];
  snprintf(buf, sizeof buf, "%s: combiner", what);
  EXPECT_INT(buf, gc, combiner);
  snprintf(buf, sizeof buf, "%s: num_integers", what);
  EXPECT_INT(buf, gi, ni);
  snprintf(buf, sizeof buf, "%s: num_addresses", what);
  EXPECT_INT(buf, ga, na);
  snprintf(buf, sizeof buf, "%s: num_datatypes", what);
  EXPECT_INT(buf, gd, nd);
}

static void expect_ints(const char *what, const int *got, const int *exp, int n) {
  for (int i = 0; i < n; ++i) {
    if (got[i] != exp[i]) fail("%s[%d]: got %d, expected %d", what, i, got[i], exp[i]);
  }
}

static void expect_aints(const char *what, const MPI_Aint *got, const MPI_Aint *exp, int n) {
  for (int i = 0; i < n; ++i) {
    if (got[i] != exp[i])
      fail("%s[%d]: got %lld, expected %lld", what, i, (long long)got[i], (long long)exp[i]);
  }
}

/* Contents of a type made by an MPI-3 constructor. */
static void expect_contents(const char *what, MPI_Datatype t, int ni, const int *ints, int na,
                            const MPI_Aint *addrs, int nd, MPI_Datatype *types) {
  int combiner, gi, ga, gd;
  CHECK_MPI(MPI_Type_get_envelope(t, &gi, &ga, &gd, &combiner));
  EXPECT_INT(what, gi * 10000 + ga * 100 + gd, ni * 10000 + na * 100 + nd);
  int gotints[64];
  MPI_Aint gotaddrs[64];
  CHECK_MPI(MPI_Type_get_contents(t, 64, 64, 64, gotints, gotaddrs, types));
  expect_ints(what, gotints, ints, ni);
  expect_aints(what, gotaddrs, addrs, na);
}

static void test_named(void) {
  MPI_Datatype named[] = {MPI_INT, MPI_DOUBLE, MPI_DOUBLE_INT, MPI_BYTE, MPI_PACKED};
  for (int i = 0; i < 5; ++i) {
    expect_envelope("predefined", named[i], 0, 0, 0, MPI_COMBINER_NAMED);
    MPI_Count ni, na, nc, nd;
    int combiner;
    CHECK_MPI(MPI_Type_get_envelope_c(named[i], &ni, &na, &nc, &nd, &combiner));
    EXPECT_INT("predefined: combiner (_c)", combiner, MPI_COMBINER_NAMED);
    EXPECT_INT("predefined: counts (_c)", ni + na + nc + nd, 0);
    int ints[1];
    MPI_Aint addrs[1];
    MPI_Datatype types[1];
    EXPECT_CLASS(MPI_Type_get_contents(named[i], 1, 1, 1, ints, addrs, types), MPI_ERR_TYPE);
  }
}

static void test_combiners(void) {
  MPI_Datatype t, inner, types[4];
  int ints[64];
  MPI_Aint addrs[64];

  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &inner));
  ints[0] = 3;
  expect_contents("contiguous", inner, 1, ints, 0, addrs, 1, types);
  EXPECT_INT("contiguous: old type", types[0] == MPI_INT, 1);

  CHECK_MPI(MPI_Type_dup(inner, &t));
  expect_envelope("dup", t, 0, 0, 1, MPI_COMBINER_DUP);
  expect_contents("dup", t, 0, ints, 0, addrs, 1, types);
  /* A derived old type comes back as a new handle describing the same type. */
  EXPECT_INT("dup: old type is a new handle", types[0] != inner, 1);
  expect_contents("dup's old type", types[0], 1, ints, 0, addrs, 1, types + 1);
  EXPECT_INT("dup's old type's old type", types[1] == MPI_INT, 1);
  int size;
  CHECK_MPI(MPI_Type_size(types[0], &size));
  EXPECT_INT("dup's old type's size", size, 12);
  CHECK_MPI(MPI_Type_free(&types[0]));
  CHECK_MPI(MPI_Type_free(&t));

  CHECK_MPI(MPI_Type_vector(4, 2, -5, inner, &t));
  /* The recipe outlives the program's handle of its old type. */
  MPI_Datatype saved_inner = inner;
  CHECK_MPI(MPI_Type_free(&inner));
  int vec[] = {4, 2, -5};
  expect_contents("vector", t, 3, vec, 0, addrs, 1, types);
  EXPECT_INT("vector: old type is new", types[0] != MPI_DATATYPE_NULL, 1);
  (void)saved_inner;
  int three[] = {3};
  expect_contents("vector's old type", types[0], 1, three, 0, addrs, 1, types + 1);
  CHECK_MPI(MPI_Type_free(&types[0]));
  CHECK_MPI(MPI_Type_free(&t));

  CHECK_MPI(MPI_Type_create_hvector(5, 1, 24, MPI_DOUBLE, &t));
  int hv[] = {5, 1};
  MPI_Aint hva[] = {24};
  expect_contents("hvector", t, 2, hv, 1, hva, 1, types);
  EXPECT_INT("hvector: old type", types[0] == MPI_DOUBLE, 1);
  CHECK_MPI(MPI_Type_free(&t));

  int bl[] = {1, 0, 3}, disp[] = {7, 2, 0};
  CHECK_MPI(MPI_Type_indexed(3, bl, disp, MPI_SHORT, &t));
  int ix[] = {3, 1, 0, 3, 7, 2, 0};
  expect_contents("indexed", t, 7, ix, 0, addrs, 1, types);
  CHECK_MPI(MPI_Type_free(&t));

  MPI_Aint hdisp[] = {-8, 100, 40};
  CHECK_MPI(MPI_Type_create_hindexed(3, bl, hdisp, MPI_FLOAT, &t));
  int hx[] = {3, 1, 0, 3};
  expect_contents("hindexed", t, 4, hx, 3, hdisp, 1, types);
  CHECK_MPI(MPI_Type_free(&t));

  CHECK_MPI(MPI_Type_create_indexed_block(3, 2, disp, MPI_INT, &t));
  int ib[] = {3, 2, 7, 2, 0};
  expect_contents("indexed_block", t, 5, ib, 0, addrs, 1, types);
  CHECK_MPI(MPI_Type_free(&t));

  CHECK_MPI(MPI_Type_create_hindexed_block(3, 2, hdisp, MPI_INT, &t));
  int hb[] = {3, 2};
  expect_contents("hindexed_block", t, 2, hb, 3, hdisp, 1, types);
  CHECK_MPI(MPI_Type_free(&t));

  MPI_Datatype members[3];
  CHECK_MPI(MPI_Type_contiguous(2, MPI_CHAR, &members[1]));
  members[0] = MPI_INT;
  members[2] = MPI_DOUBLE;
  int sbl[] = {1, 2, 1};
  MPI_Aint sdisp[] = {0, 4, 8};
  CHECK_MPI(MPI_Type_create_struct(3, sbl, sdisp, members, &t));
  int sx[] = {3, 1, 2, 1};
  expect_contents("struct", t, 4, sx, 3, sdisp, 3, types);
  EXPECT_INT("struct: types[0]", types[0] == MPI_INT, 1);
  EXPECT_INT("struct: types[2]", types[2] == MPI_DOUBLE, 1);
  int two[] = {2};
  expect_contents("struct: types[1]", types[1], 1, two, 0, addrs, 1, types + 3);
  EXPECT_INT("struct: types[1]'s old type", types[3] == MPI_CHAR, 1);
  CHECK_MPI(MPI_Type_free(&types[1]));
  CHECK_MPI(MPI_Type_free(&members[1]));
  CHECK_MPI(MPI_Type_free(&t));

  CHECK_MPI(MPI_Type_create_resized(MPI_INT, -4, 16, &t));
  MPI_Aint rs[] = {-4, 16};
  expect_contents("resized", t, 0, ints, 2, rs, 1, types);
  CHECK_MPI(MPI_Type_free(&t));

  int sizes[] = {4, 5}, subsizes[] = {2, 3}, starts[] = {1, 2};
  CHECK_MPI(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &t));
  int sa[] = {2, 4, 5, 2, 3, 1, 2, MPI_ORDER_FORTRAN};
  expect_contents("subarray", t, 8, sa, 0, addrs, 1, types);
  CHECK_MPI(MPI_Type_free(&t));

  int gs[] = {10, 9}, ds[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
      da[] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[] = {2, 3};
  CHECK_MPI(MPI_Type_create_darray(6, 4, 2, gs, ds, da, ps, MPI_ORDER_C, MPI_INT, &t));
  int dx[] = {
      6, 4, 2, 10,         9, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG,
      2, 2, 3, MPI_ORDER_C};
  expect_contents("darray", t, 12, dx, 0, addrs, 1, types);
  CHECK_MPI(MPI_Type_free(&t));

  int too_few[1];
  CHECK_MPI(MPI_Type_vector(4, 2, 3, MPI_INT, &t));
  EXPECT_CLASS(MPI_Type_get_contents(t, 1, 0, 1, too_few, addrs, types), MPI_ERR_ARG);
  CHECK_MPI(MPI_Type_free(&t));
}

static void test_large_count_constructors(void) {
  MPI_Datatype t, types[2];
  MPI_Count ni, na, nc, nd;
  int combiner, ints[8];
  MPI_Aint addrs[8];
  MPI_Count counts[16];

  CHECK_MPI(MPI_Type_vector_c(3, 2, (MPI_Count)1 << 33, MPI_BYTE, &t));
  CHECK_MPI(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &combiner));
  EXPECT_INT("vector_c: combiner", combiner, MPI_COMBINER_VECTOR);
  EXPECT_INT("vector_c: ni na nc nd", ni * 1000 + na * 100 + nc * 10 + nd, 31);
  CHECK_MPI(MPI_Type_get_contents_c(t, 0, 0, 3, 1, ints, addrs, counts, types));
  EXPECT_INT("vector_c: count", counts[0], 3);
  EXPECT_INT("vector_c: blocklength", counts[1], 2);
  EXPECT_INT("vector_c: stride", counts[2], (MPI_Count)1 << 33);
  int gi, ga, gd;
  EXPECT_CLASS(MPI_Type_get_envelope(t, &gi, &ga, &gd, &combiner), MPI_ERR_TYPE);
  MPI_Count lb, extent;
  CHECK_MPI(MPI_Type_get_extent_c(t, &lb, &extent));
  EXPECT_INT("vector_c: extent", extent, ((MPI_Count)2 << 33) + 2);
  CHECK_MPI(MPI_Type_get_extent_x(t, &lb, &extent));
  EXPECT_INT("vector_c: extent (_x)", extent, ((MPI_Count)2 << 33) + 2);
  CHECK_MPI(MPI_Type_free(&t));

  MPI_Count bl[] = {2, 1}, disp[] = {-3, 1000};
  CHECK_MPI(MPI_Type_create_hindexed_c(2, bl, disp, MPI_INT, &t));
  CHECK_MPI(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &combiner));
  EXPECT_INT("hindexed_c: combiner", combiner, MPI_COMBINER_HINDEXED);
  EXPECT_INT("hindexed_c: ni na nc nd", ni * 1000 + na * 100 + nc * 10 + nd, 51);
  CHECK_MPI(MPI_Type_get_contents_c(t, 0, 0, 5, 1, ints, addrs, counts, types));
  MPI_Count hx[] = {2, 2, 1, -3, 1000};
  for (int i = 0; i < 5; ++i) EXPECT_INT("hindexed_c: large counts", counts[i], hx[i]);
  CHECK_MPI(MPI_Type_free(&t));

  MPI_Count sizes[] = {6, 7}, subsizes[] = {2, 3}, starts[] = {4, 0};
  CHECK_MPI(MPI_Type_create_subarray_c(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t));
  CHECK_MPI(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &combiner));
  EXPECT_INT("subarray_c: ni na nc nd", ni * 1000 + na * 100 + nc * 10 + nd, 2061);
  CHECK_MPI(MPI_Type_get_contents_c(t, 2, 0, 6, 1, ints, addrs, counts, types));
  EXPECT_INT("subarray_c: ndims", ints[0], 2);
  EXPECT_INT("subarray_c: order", ints[1], MPI_ORDER_C);
  MPI_Count sx[] = {6, 7, 2, 3, 4, 0};
  for (int i = 0; i < 6; ++i) EXPECT_INT("subarray_c: large counts", counts[i], sx[i]);
  CHECK_MPI(MPI_Type_free(&t));

  CHECK_MPI(MPI_Type_create_resized_c(MPI_INT, 0, (MPI_Count)5 << 31, &t));
  CHECK_MPI(MPI_Type_get_contents_c(t, 0, 0, 2, 1, ints, addrs, counts, types));
  EXPECT_INT("resized_c: extent", counts[1], (MPI_Count)5 << 31);
  CHECK_MPI(MPI_Type_free(&t));

  /* 12 GiB of data in one element. */
  CHECK_MPI(MPI_Type_contiguous_c((MPI_Count)3 << 30, MPI_INT, &t));
  int size;
  CHECK_MPI(MPI_Type_size(t, &size));
  EXPECT_INT("12 GiB type: MPI_Type_size", size, MPI_UNDEFINED);
  MPI_Count csize;
  CHECK_MPI(MPI_Type_size_c(t, &csize));
  EXPECT_INT("12 GiB type: MPI_Type_size_c", csize, (MPI_Count)12 << 30);
  CHECK_MPI(MPI_Type_size_x(t, &csize));
  EXPECT_INT("12 GiB type: MPI_Type_size_x", csize, (MPI_Count)12 << 30);
  CHECK_MPI(MPI_Type_commit(&t));
  CHECK_MPI(MPI_Pack_size_c(2, t, MPI_COMM_WORLD, &csize));
  EXPECT_INT("12 GiB type: MPI_Pack_size_c", csize, (MPI_Count)24 << 30);
  EXPECT_CLASS(MPI_Pack_size(1, t, MPI_COMM_WORLD, &size), MPI_ERR_COUNT);
  CHECK_MPI(MPI_Type_get_true_extent_c(t, &lb, &extent));
  EXPECT_INT("12 GiB type: true extent", extent, (MPI_Count)12 << 30);
  CHECK_MPI(MPI_Type_free(&t));

  /* MPI_Pack_c / MPI_Unpack_c round trip through a strided type. */
  int data[12], back[12];
  char packed[64];
  for (int i = 0; i < 12; ++i) data[i] = 100 + i, back[i] = -1;
  CHECK_MPI(MPI_Type_vector_c(3, 1, 4, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  MPI_Count position = 0;
  CHECK_MPI(MPI_Pack_c(data, 1, t, packed, sizeof packed, &position, MPI_COMM_WORLD));
  EXPECT_INT("MPI_Pack_c: position", position, 12);
  int expect_packed[] = {100, 104, 108};
  expect_ints("MPI_Pack_c: bytes", (const int *)packed, expect_packed, 3);
  position = 0;
  CHECK_MPI(MPI_Unpack_c(packed, 12, &position, back, 1, t, MPI_COMM_WORLD));
  EXPECT_INT("MPI_Unpack_c: position", position, 12);
  for (int i = 0; i < 12; ++i) EXPECT_INT("MPI_Unpack_c", back[i], i % 4 == 0 ? 100 + i : -1);
  position = 0;
  EXPECT_CLASS(MPI_Pack_c(data, 2, t, packed, 16, &position, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  CHECK_MPI(MPI_Type_free(&t));
}

static void test_lookups(void) {
  MPI_Datatype t, again, types[1];
  int size;
  struct {
    int typeclass, size;
  } sizes[] = {{MPI_TYPECLASS_INTEGER, 1}, {MPI_TYPECLASS_INTEGER, 4}, {MPI_TYPECLASS_INTEGER, 8},
               {MPI_TYPECLASS_REAL, 4},    {MPI_TYPECLASS_REAL, 8},    {MPI_TYPECLASS_COMPLEX, 8},
               {MPI_TYPECLASS_COMPLEX, 16}};
  for (int i = 0; i < 7; ++i) {
    CHECK_MPI(MPI_Type_match_size(sizes[i].typeclass, sizes[i].size, &t));
    CHECK_MPI(MPI_Type_size(t, &size));
    EXPECT_INT("MPI_Type_match_size: size", size, sizes[i].size);
  }
  CHECK_MPI(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
  EXPECT_INT("MPI_Type_match_size(REAL, 8)", t == MPI_REAL8, 1);
  EXPECT_CLASS(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t), MPI_ERR_ARG);

  CHECK_MPI(MPI_Type_create_f90_real(6, 30, &t));
  CHECK_MPI(MPI_Type_size(t, &size));
  EXPECT_INT("f90 real(6, 30): size", size, 4);
  CHECK_MPI(MPI_Type_create_f90_real(6, 30, &again));
  EXPECT_INT("f90 real(6, 30) twice: same handle", t == again, 1);
  int ints[2];
  MPI_Aint addrs[1];
  expect_envelope("f90 real", t, 2, 0, 0, MPI_COMBINER_F90_REAL);
  CHECK_MPI(MPI_Type_get_contents(t, 2, 0, 0, ints, addrs, types));
  EXPECT_INT("f90 real: p", ints[0], 6);
  EXPECT_INT("f90 real: r", ints[1], 30);
  EXPECT_CLASS(MPI_Type_free(&t), MPI_ERR_TYPE);
  CHECK_MPI(MPI_Type_create_f90_real(15, 300, &t));
  CHECK_MPI(MPI_Type_size(t, &size));
  EXPECT_INT("f90 real(15, 300): size", size, 8);
  CHECK_MPI(MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &t));
  CHECK_MPI(MPI_Type_size(t, &size));
  EXPECT_INT("f90 complex(15, -): size", size, 16);
  expect_envelope("f90 complex", t, 2, 0, 0, MPI_COMBINER_F90_COMPLEX);
  CHECK_MPI(MPI_Type_create_f90_integer(9, &t));
  CHECK_MPI(MPI_Type_size(t, &size));
  EXPECT_INT("f90 integer(9): size", size, 4);
  expect_envelope("f90 integer", t, 1, 0, 0, MPI_COMBINER_F90_INTEGER);
  CHECK_MPI(MPI_Type_create_f90_integer(10, &t));
  CHECK_MPI(MPI_Type_size(t, &size));
  EXPECT_INT("f90 integer(10): size", size, 8);
  EXPECT_CLASS(MPI_Type_create_f90_real(40, 30, &t), MPI_ERR_ARG);

  CHECK_MPI(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t));
  EXPECT_INT("value index (double, int)", t == MPI_DOUBLE_INT, 1);
  CHECK_MPI(MPI_Type_get_value_index(MPI_SHORT, MPI_INT, &t));
  EXPECT_INT("value index (short, int)", t == MPI_SHORT_INT, 1);
  CHECK_MPI(MPI_Type_get_value_index(MPI_FLOAT, MPI_FLOAT, &t));
  EXPECT_INT("value index (float, float)", t == MPI_DATATYPE_NULL, 1);
  EXPECT_CLASS(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &t), MPI_ERR_TYPE);
}

int main(int argc, char **argv) {
  int size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &g_rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

  test_named();
  test_combiners();
  test_large_count_constructors();
  test_lookups();

  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  finalize_and_report(size);
  return 0;
}
