/*
 * datatypes.c - derived datatypes: construction, bounds, names, MPI_Pack and
 * MPI_Unpack.
 *
 * Checks, on every rank:
 *   1. Predefined types: MPI_Type_size, MPI_Type_get_extent,
 *      MPI_Type_get_true_extent and MPI_Type_get_name ("MPI_INT"); a pair
 *      type's size leaves its padding out (MPI_DOUBLE_INT: size 12, extent
 *      16); MPI_Type_set_name renames a predefined type.
 *   2. Each constructor's size, lb, extent, true lb and true extent, against
 *      the standard's rules: MPI_Type_contiguous, MPI_Type_vector (positive
 *      and negative stride), MPI_Type_create_hvector (a byte stride off the
 *      alignment pads the extent: the standard's epsilon),
 *      MPI_Type_indexed (blocks out of order, an empty block),
 *      MPI_Type_create_hindexed, MPI_Type_create_indexed_block,
 *      MPI_Type_create_hindexed_block, MPI_Type_create_struct (C structs
 *      described with MPI_Get_address: the extent is sizeof, padding
 *      included), MPI_Type_create_resized (explicit bounds, which a struct
 *      keeps over its other members'), MPI_Type_dup; derived types are
 *      unnamed until MPI_Type_set_name.
 *   3. MPI_Pack / MPI_Unpack round trips through each type, with the packed
 *      bytes in typemap order (indexed blocks as listed, not as laid out),
 *      several calls sharing one buffer and position, and MPI_Pack_size.
 *      Memory the type does not cover is left as it was.
 *   4. A type built from another works after the other is freed;
 *      MPI_Type_free sets the handle to MPI_DATATYPE_NULL.
 *   5. Packed data travels between ranks as MPI_PACKED: each rank packs
 *      structs and a matrix column and sends them to the next rank with
 *      MPI_Sendrecv, which unpacks and checks what the previous rank sent.
 *   6. With MPI_ERRORS_RETURN: a negative count is MPI_ERR_COUNT, a negative
 *      block length MPI_ERR_ARG, MPI_DATATYPE_NULL as old type MPI_ERR_TYPE,
 *      packing with an uncommitted type MPI_ERR_TYPE, freeing a predefined
 *      type MPI_ERR_TYPE, and packing or unpacking past the buffer's end
 *      MPI_ERR_TRUNCATE with the position unchanged.
 *
 * Prints "datatypes: OK (N ranks)" from rank 0.
 */
#define PROGRAM "datatypes"
#include <stddef.h>
#include <string.h>

#include "check.h"

/* The call must fail with error class `cls` (under MPI_ERRORS_RETURN). */
#define EXPECT_CLASS(call, cls)                                                         \
  do {                                                                                  \
    int erc_ = (call), cls_ = -1;                                                       \
    if (erc_ == MPI_SUCCESS) fail("%s succeeded, expected error class %d", #call, cls); \
    CHECK_MPI(MPI_Error_class(erc_, &cls_));                                            \
    EXPECT_INT(#call ": error class", cls_, cls);                                       \
  } while (0)

/* size, lb, extent, true lb and true extent of `type`. */
static void expect_bounds(const char *what, MPI_Datatype type, int size, MPI_Aint lb,
                          MPI_Aint extent, MPI_Aint true_lb, MPI_Aint true_extent) {
  int s = -1;
  MPI_Aint l = -1, e = -1, tl = -1, te = -1;
  char label[200];
  CHECK_MPI(MPI_Type_size(type, &s));
  CHECK_MPI(MPI_Type_get_extent(type, &l, &e));
  CHECK_MPI(MPI_Type_get_true_extent(type, &tl, &te));
  snprintf(label, sizeof label, "%s: MPI_Type_size", what);
  EXPECT_INT(label, s, size);
  snprintf(label, sizeof label, "%s: lb", what);
  EXPECT_INT(label, l, lb);
  snprintf(label, sizeof label, "%s: extent", what);
  EXPECT_INT(label, e, extent);
  snprintf(label, sizeof label, "%s: true lb", what);
  EXPECT_INT(label, tl, true_lb);
  snprintf(label, sizeof label, "%s: true extent", what);
  EXPECT_INT(label, te, true_extent);
}

static void expect_name(const char *what, MPI_Datatype type, const char *expected) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_MPI(MPI_Type_get_name(type, name, &len));
  if (strcmp(name, expected) != 0) fail("%s: name '%s', expected '%s'", what, name, expected);
  EXPECT_INT(what, len, (int)strlen(expected));
}

/* Packs `count` elements of `type` from in + origin and checks the packed ints
 * are `expected` (n of them); then unpacks them to out + origin, with out's
 * first `span` ints set to -1 before, and checks that exactly the packed
 * positions came back. */
static void round_trip_ints(const char *what, MPI_Datatype type, int count, const int *in,
                            int origin, int span, const int *expected, int n) {
  int packed[256], out[256], size = -1, position = 0, k, found;
  char label[200];
  CHECK_MPI(MPI_Pack_size(count, type, MPI_COMM_WORLD, &size));
  snprintf(label, sizeof label, "%s: MPI_Pack_size", what);
  EXPECT_INT(label, size, n * (int)sizeof(int));
  CHECK_MPI(MPI_Pack(in + origin, count, type, packed, sizeof packed, &position, MPI_COMM_WORLD));
  snprintf(label, sizeof label, "%s: position after MPI_Pack", what);
  EXPECT_INT(label, position, n * (int)sizeof(int));
  for (k = 0; k < n; k++) {
    snprintf(label, sizeof label, "%s: packed int %d", what, k);
    EXPECT_INT(label, packed[k], expected[k]);
  }
  for (k = 0; k < span; k++) out[k] = -1;
  position = 0;
  CHECK_MPI(MPI_Unpack(packed, n * (int)sizeof(int), &position, out + origin, count, type,
                       MPI_COMM_WORLD));
  snprintf(label, sizeof label, "%s: position after MPI_Unpack", what);
  EXPECT_INT(label, position, n * (int)sizeof(int));
  for (k = 0; k < span; k++) {
    int j;
    found = 0;
    for (j = 0; j < n; j++) found |= expected[j] == in[k];
    snprintf(label, sizeof label, "%s: unpacked int %d", what, k);
    EXPECT_INT(label, out[k], found ? in[k] : -1);
  }
}

struct particle {
  int id;
  char tag;
  double mass;
};

/* struct particle, described with MPI_Get_address. */
static MPI_Datatype particle_type(void) {
  static struct particle p;
  int bl[3] = {1, 1, 1};
  MPI_Aint base, d[3];
  MPI_Datatype ty[3] = {MPI_INT, MPI_CHAR, MPI_DOUBLE}, t;
  CHECK_MPI(MPI_Get_address(&p, &base));
  CHECK_MPI(MPI_Get_address(&p.id, &d[0]));
  CHECK_MPI(MPI_Get_address(&p.tag, &d[1]));
  CHECK_MPI(MPI_Get_address(&p.mass, &d[2]));
  d[0] -= base;
  d[1] -= base;
  d[2] -= base;
  CHECK_MPI(MPI_Type_create_struct(3, bl, d, ty, &t));
  return t;
}

static struct particle particle_of(int rank, int i) {
  struct particle p;
  memset(&p, 0, sizeof p);
  p.id = 1000 * rank + i;
  p.tag = (char)('a' + (rank + i) % 26);
  p.mass = 0.5 * i + rank;
  return p;
}

#define ROWS 4
#define COLS 5

int main(int argc, char **argv) {
  int rank, size, k;
  int ints[64];

  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  g_rank = rank;
  for (k = 0; k < 64; k++) ints[k] = 100 + k;

  /* 1. Predefined types. */
  expect_bounds("MPI_INT", MPI_INT, sizeof(int), 0, sizeof(int), 0, sizeof(int));
  expect_bounds("MPI_DOUBLE", MPI_DOUBLE, 8, 0, 8, 0, 8);
  expect_bounds("MPI_CHAR", MPI_CHAR, 1, 0, 1, 0, 1);
  expect_bounds("MPI_DOUBLE_INT", MPI_DOUBLE_INT, 12, 0, 16, 0, 12);
  expect_bounds("MPI_2INT", MPI_2INT, 8, 0, 8, 0, 8);
  expect_name("MPI_INT", MPI_INT, "MPI_INT");
  expect_name("MPI_DOUBLE", MPI_DOUBLE, "MPI_DOUBLE");
  expect_name("MPI_UNSIGNED", MPI_UNSIGNED, "MPI_UNSIGNED");
  expect_name("MPI_DOUBLE_INT", MPI_DOUBLE_INT, "MPI_DOUBLE_INT");
  CHECK_MPI(MPI_Type_set_name(MPI_FLOAT, "single"));
  expect_name("renamed MPI_FLOAT", MPI_FLOAT, "single");
  CHECK_MPI(MPI_Type_set_name(MPI_FLOAT, "MPI_FLOAT"));
  {
    int s = -1;
    CHECK_MPI(MPI_Pack_size(3, MPI_DOUBLE_INT, MPI_COMM_WORLD, &s));
    EXPECT_INT("MPI_Pack_size(3, MPI_DOUBLE_INT)", s, 36);
  }

  /* 2 and 3. Constructors, bounds and round trips. */
  {
    MPI_Datatype t;
    const int expected[] = {100, 101, 102, 103, 104, 105, 106};
    CHECK_MPI(MPI_Type_contiguous(7, MPI_INT, &t));
    expect_bounds("contiguous(7, MPI_INT)", t, 28, 0, 28, 0, 28);
    expect_name("contiguous(7, MPI_INT)", t, "");
    CHECK_MPI(MPI_Type_commit(&t));
    round_trip_ints("contiguous(7, MPI_INT)", t, 1, ints, 0, 10, expected, 7);
    CHECK_MPI(MPI_Type_free(&t));
    if (t != MPI_DATATYPE_NULL) fail("MPI_Type_free did not set MPI_DATATYPE_NULL");
  }
  {
    /* Blocks of 2 every 4 ints, 3 blocks; extent 10 ints, so the second
     * element starts at int 10. */
    MPI_Datatype t;
    const int expected[] = {100, 101, 104, 105, 108, 109, 110, 111, 114, 115, 118, 119};
    CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
    expect_bounds("vector(3, 2, 4, MPI_INT)", t, 24, 0, 40, 0, 40);
    expect_name("vector(3, 2, 4, MPI_INT)", t, "");
    CHECK_MPI(MPI_Type_set_name(t, "blocks"));
    expect_name("vector after MPI_Type_set_name", t, "blocks");
    CHECK_MPI(MPI_Type_commit(&t));
    round_trip_ints("vector(3, 2, 4, MPI_INT) x 2", t, 2, ints, 0, 24, expected, 12);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    /* A negative stride: the blocks go down from the buffer's address. */
    MPI_Datatype t;
    const int expected[] = {120, 121, 116, 117, 112, 113};
    CHECK_MPI(MPI_Type_vector(3, 2, -4, MPI_INT, &t));
    expect_bounds("vector(3, 2, -4, MPI_INT)", t, 24, -32, 40, -32, 40);
    CHECK_MPI(MPI_Type_commit(&t));
    round_trip_ints("vector(3, 2, -4, MPI_INT)", t, 1, ints, 20, 24, expected, 6);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    /* Ints 5 bytes apart: data spans 14 bytes, the extent pads to int's
     * alignment: 16. */
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_create_hvector(3, 1, 5, MPI_INT, &t));
    expect_bounds("hvector(3, 1, 5 bytes, MPI_INT)", t, 12, 0, 16, 0, 14);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_create_hvector(3, 1, 12, MPI_INT, &t));
    expect_bounds("hvector(3, 1, 12 bytes, MPI_INT)", t, 12, 0, 28, 0, 28);
    CHECK_MPI(MPI_Type_commit(&t));
    {
      const int expected[] = {100, 103, 106};
      round_trip_ints("hvector(3, 1, 12 bytes, MPI_INT)", t, 1, ints, 0, 8, expected, 3);
    }
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    /* Blocks listed out of order pack in the order listed. */
    MPI_Datatype t;
    int bl[3] = {2, 1, 3}, d[3] = {4, 0, 7};
    const int expected[] = {104, 105, 100, 107, 108, 109};
    CHECK_MPI(MPI_Type_indexed(3, bl, d, MPI_INT, &t));
    expect_bounds("indexed({2,1,3}, {4,0,7}, MPI_INT)", t, 24, 0, 40, 0, 40);
    CHECK_MPI(MPI_Type_commit(&t));
    round_trip_ints("indexed({2,1,3}, {4,0,7}, MPI_INT)", t, 1, ints, 0, 12, expected, 6);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    /* An empty block counts for nothing, bounds included. */
    MPI_Datatype t;
    int bl[2] = {0, 2}, d[2] = {5, 1};
    CHECK_MPI(MPI_Type_indexed(2, bl, d, MPI_INT, &t));
    expect_bounds("indexed({0,2}, {5,1}, MPI_INT)", t, 8, 4, 8, 4, 8);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    MPI_Datatype t;
    int bl[2] = {1, 2};
    MPI_Aint d[2] = {12, 0};
    const int expected[] = {103, 100, 101};
    CHECK_MPI(MPI_Type_create_hindexed(2, bl, d, MPI_INT, &t));
    expect_bounds("hindexed({1,2}, {12,0} bytes, MPI_INT)", t, 12, 0, 16, 0, 16);
    CHECK_MPI(MPI_Type_commit(&t));
    round_trip_ints("hindexed({1,2}, {12,0} bytes, MPI_INT)", t, 1, ints, 0, 6, expected, 3);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    MPI_Datatype t;
    int d[3] = {6, 0, 3};
    const int expected[] = {112, 113, 100, 101, 106, 107};
    /* Blocks of 2 ints at 6, 0 and 3 two-int units. */
    MPI_Datatype two;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &two));
    CHECK_MPI(MPI_Type_create_indexed_block(3, 1, d, two, &t));
    expect_bounds("indexed_block(3, 1, {6,0,3}, 2 ints)", t, 24, 0, 56, 0, 56);
    CHECK_MPI(MPI_Type_commit(&t));
    round_trip_ints("indexed_block(3, 1, {6,0,3}, 2 ints)", t, 1, ints, 0, 16, expected, 6);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_free(&two));
  }
  {
    MPI_Datatype t;
    MPI_Aint d[2] = {8, 32};
    const int expected[] = {102, 103, 108, 109};
    CHECK_MPI(MPI_Type_create_hindexed_block(2, 2, d, MPI_INT, &t));
    expect_bounds("hindexed_block(2, 2, {8,32} bytes, MPI_INT)", t, 16, 8, 32, 8, 32);
    CHECK_MPI(MPI_Type_commit(&t));
    round_trip_ints("hindexed_block(2, 2, {8,32} bytes, MPI_INT)", t, 1, ints, 0, 12, expected, 4);
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    /* C structs: the extent is sizeof, with the padding. */
    struct cd {
      char c;
      double d;
    };
    MPI_Datatype t, u;
    int bl[2] = {1, 1};
    MPI_Aint d[2] = {offsetof(struct cd, c), offsetof(struct cd, d)};
    MPI_Datatype ty[2] = {MPI_CHAR, MPI_DOUBLE};
    CHECK_MPI(MPI_Type_create_struct(2, bl, d, ty, &t));
    expect_bounds("struct {char; double;}", t, 9, 0, sizeof(struct cd), 0, sizeof(struct cd));
    expect_name("struct {char; double;}", t, "");
    CHECK_MPI(MPI_Type_free(&t));
    t = particle_type();
    expect_bounds("struct particle", t, 13, 0, sizeof(struct particle), 0,
                  offsetof(struct particle, mass) + sizeof(double));
    CHECK_MPI(MPI_Type_free(&t));
    /* Data from byte 4: lb 4; 9 bytes of span padded to 12. */
    {
      MPI_Aint d2[2] = {4, 12};
      MPI_Datatype ty2[2] = {MPI_INT, MPI_CHAR};
      CHECK_MPI(MPI_Type_create_struct(2, bl, d2, ty2, &t));
      expect_bounds("struct {int at 4; char at 12}", t, 5, 4, 12, 4, 9);
      CHECK_MPI(MPI_Type_free(&t));
    }
    /* An empty member's alignment does not count. */
    {
      int bl3[2] = {1, 0};
      MPI_Aint d3[2] = {0, 8};
      MPI_Datatype ty3[2] = {MPI_CHAR, MPI_DOUBLE};
      CHECK_MPI(MPI_Type_create_struct(2, bl3, d3, ty3, &t));
      expect_bounds("struct {char; 0 doubles}", t, 1, 0, 1, 0, 1);
      CHECK_MPI(MPI_Type_free(&t));
    }
    /* Resized: explicit bounds, kept by a struct over its other members. */
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, -2, 10, &t));
    expect_bounds("resized(MPI_INT, -2, 10)", t, 4, -2, 10, 0, 4);
    {
      MPI_Aint d4[2] = {0, 20};
      MPI_Datatype ty4[2] = {t, MPI_CHAR};
      CHECK_MPI(MPI_Type_create_struct(2, bl, d4, ty4, &u));
      expect_bounds("struct {resized(MPI_INT, -2, 10); char at 20}", u, 5, -2, 10, 0, 21);
      CHECK_MPI(MPI_Type_free(&u));
    }
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, 0, 5, &t));
    CHECK_MPI(MPI_Type_contiguous(3, t, &u));
    expect_bounds("contiguous(3, resized(MPI_INT, 0, 5))", u, 12, 0, 15, 0, 14);
    CHECK_MPI(MPI_Type_free(&u));
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    /* A whole array of structs through one pack. */
    struct particle in[3], out[3];
    MPI_Datatype t = particle_type(), d;
    unsigned char packed[100];
    int position = 0, s = -1;
    for (k = 0; k < 3; k++) in[k] = particle_of(rank, k);
    CHECK_MPI(MPI_Type_commit(&t));
    CHECK_MPI(MPI_Type_dup(t, &d));
    expect_bounds("dup(struct particle)", d, 13, 0, sizeof(struct particle), 0,
                  offsetof(struct particle, mass) + sizeof(double));
    CHECK_MPI(MPI_Pack_size(3, d, MPI_COMM_WORLD, &s));
    EXPECT_INT("MPI_Pack_size(3, struct particle)", s, 39);
    CHECK_MPI(MPI_Pack(in, 3, d, packed, sizeof packed, &position, MPI_COMM_WORLD));
    EXPECT_INT("struct particle: position after MPI_Pack", position, 39);
    memset(out, 0, sizeof out);
    position = 0;
    CHECK_MPI(MPI_Unpack(packed, 39, &position, out, 3, t, MPI_COMM_WORLD));
    EXPECT_INT("struct particle: position after MPI_Unpack", position, 39);
    for (k = 0; k < 3; k++) {
      EXPECT_INT("struct particle: id", out[k].id, in[k].id);
      EXPECT_INT("struct particle: tag", out[k].tag, in[k].tag);
      if (out[k].mass != in[k].mass)
        fail("struct particle %d: mass %g, expected %g", k, out[k].mass, in[k].mass);
    }
    CHECK_MPI(MPI_Type_free(&d));
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    /* Several packs into one buffer, unpacked in the same order. */
    unsigned char packed[200];
    int position = 0, a = 7 + rank, b[4] = {0, 0, 0, 0};
    double x = 2.5, y = 0;
    MPI_Datatype v;
    const int expected_v[] = {100, 102, 104};
    int got_v[5] = {-1, -1, -1, -1, -1};
    CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &v));
    CHECK_MPI(MPI_Type_commit(&v));
    CHECK_MPI(MPI_Pack(&a, 1, MPI_INT, packed, sizeof packed, &position, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Pack(ints, 1, v, packed, sizeof packed, &position, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Pack(&x, 1, MPI_DOUBLE, packed, sizeof packed, &position, MPI_COMM_WORLD));
    EXPECT_INT("three packs: position", position, 4 + 12 + 8);
    position = 0;
    CHECK_MPI(MPI_Unpack(packed, 24, &position, b, 1, MPI_INT, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Unpack(packed, 24, &position, got_v, 1, v, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Unpack(packed, 24, &position, &y, 1, MPI_DOUBLE, MPI_COMM_WORLD));
    EXPECT_INT("three unpacks: position", position, 24);
    EXPECT_INT("three unpacks: the int", b[0], a);
    for (k = 0; k < 5; k++)
      EXPECT_INT("three unpacks: the vector", got_v[k], k % 2 == 0 ? expected_v[k / 2] : -1);
    if (y != x) fail("three unpacks: the double is %g, expected %g", y, x);
    CHECK_MPI(MPI_Type_free(&v));
  }

  /* 4. A type outlives the types it was built from. */
  {
    MPI_Datatype inner, outer;
    const int expected[] = {100, 101, 104, 105, 108, 109};
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &inner));
    CHECK_MPI(MPI_Type_create_hvector(3, 1, 4 * sizeof(int), inner, &outer));
    CHECK_MPI(MPI_Type_free(&inner));
    CHECK_MPI(MPI_Type_commit(&outer));
    expect_bounds("hvector of a freed contiguous", outer, 24, 0, 40, 0, 40);
    round_trip_ints("hvector of a freed contiguous", outer, 1, ints, 0, 12, expected, 6);
    CHECK_MPI(MPI_Type_free(&outer));
  }

  /* 5. Packed data between ranks. */
  {
    struct particle mine[2], theirs[2];
    double matrix[ROWS][COLS], column[ROWS];
    unsigned char sendbuf[256], recvbuf[256];
    int position = 0, next = (rank + 1) % size, prev = (rank + size - 1) % size, r, c;
    MPI_Datatype p = particle_type(), col, col1;
    MPI_Status status;
    CHECK_MPI(MPI_Type_commit(&p));
    /* A column of the matrix, resized so that consecutive columns follow. */
    CHECK_MPI(MPI_Type_vector(ROWS, 1, COLS, MPI_DOUBLE, &col));
    CHECK_MPI(MPI_Type_create_resized(col, 0, sizeof(double), &col1));
    CHECK_MPI(MPI_Type_commit(&col1));
    expect_bounds("column resized to one double", col1, ROWS * 8, 0, 8, 0,
                  ((ROWS - 1) * COLS + 1) * 8);
    for (r = 0; r < ROWS; r++)
      for (c = 0; c < COLS; c++) matrix[r][c] = 100.0 * rank + 10 * r + c;
    for (k = 0; k < 2; k++) mine[k] = particle_of(rank, k + 5);
    CHECK_MPI(MPI_Pack(mine, 2, p, sendbuf, sizeof sendbuf, &position, MPI_COMM_WORLD));
    /* Columns 2 and 3, one after the other. */
    CHECK_MPI(MPI_Pack(&matrix[0][2], 2, col1, sendbuf, sizeof sendbuf, &position, MPI_COMM_WORLD));
    EXPECT_INT("packed message: bytes", position, 26 + 2 * ROWS * 8);
    CHECK_MPI(MPI_Sendrecv(sendbuf, position, MPI_PACKED, next, 7, recvbuf, sizeof recvbuf,
                           MPI_PACKED, prev, 7, MPI_COMM_WORLD, &status));
    {
      int got = -1;
      CHECK_MPI(MPI_Get_count(&status, MPI_PACKED, &got));
      EXPECT_INT("packed message: MPI_Get_count", got, position);
    }
    position = 0;
    memset(theirs, 0, sizeof theirs);
    CHECK_MPI(MPI_Unpack(recvbuf, sizeof recvbuf, &position, theirs, 2, p, MPI_COMM_WORLD));
    for (k = 0; k < 2; k++) {
      struct particle want = particle_of(prev, k + 5);
      EXPECT_INT("received particle: id", theirs[k].id, want.id);
      EXPECT_INT("received particle: tag", theirs[k].tag, want.tag);
      if (theirs[k].mass != want.mass) fail("received particle %d: mass %g", k, theirs[k].mass);
    }
    for (c = 0; c < 2; c++) {
      CHECK_MPI(
          MPI_Unpack(recvbuf, sizeof recvbuf, &position, column, ROWS, MPI_DOUBLE, MPI_COMM_WORLD));
      for (r = 0; r < ROWS; r++) {
        if (column[r] != 100.0 * prev + 10 * r + c + 2)
          fail("received column %d, row %d: %g", c + 2, r, column[r]);
      }
    }
    CHECK_MPI(MPI_Type_free(&col1));
    CHECK_MPI(MPI_Type_free(&col));
    CHECK_MPI(MPI_Type_free(&p));
  }

  /* 6. Errors. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  {
    MPI_Datatype t = MPI_DATATYPE_NULL, predefined = MPI_INT;
    unsigned char packed[16];
    int position = 0;
    EXPECT_CLASS(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Type_vector(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Type_free(&predefined), MPI_ERR_TYPE);
    if (predefined != MPI_INT) fail("a failed MPI_Type_free changed the handle");
    CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
    EXPECT_CLASS(MPI_Pack(ints, 1, t, packed, sizeof packed, &position, MPI_COMM_WORLD),
                 MPI_ERR_TYPE);
    CHECK_MPI(MPI_Type_commit(&t));
    EXPECT_CLASS(MPI_Pack(ints, 4, MPI_INT, packed, 10, &position, MPI_COMM_WORLD),
                 MPI_ERR_TRUNCATE);
    EXPECT_INT("position after a failed MPI_Pack", position, 0);
    CHECK_MPI(MPI_Pack(ints, 1, t, packed, sizeof packed, &position, MPI_COMM_WORLD));
    EXPECT_INT("position after MPI_Pack", position, 8);
    position = 0;
    EXPECT_CLASS(MPI_Unpack(packed, 8, &position, ints + 32, 2, t, MPI_COMM_WORLD),
                 MPI_ERR_TRUNCATE);
    EXPECT_INT("position after a failed MPI_Unpack", position, 0);
    CHECK_MPI(MPI_Type_free(&t));
  }
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));

  finalize_and_report(size);
  return 0;
}
