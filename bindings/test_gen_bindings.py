#!/usr/bin/env python3
"""Tests of bindings/gen_bindings.py (standard library unittest; run by Meson).

  - every PSV_API function and PSV_* constant of psv.h appears in all three bindings;
  - a new prototype in the header's style (HITS / RWR-like, spanning lines) is
    handled with no change to the generator, with the mappings the README documents;
  - the Julia module is textually sound (it cannot be run here): each ccall's argument type
    tuple has as many entries as arguments, blocks balance, every function is exported;
  - the Fortran module and the Rust crate compile (gfortran, rustc, when present) from a
    header with new functions.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_bindings as gb  # noqa: E402

with open(gb.HEADER, encoding="utf-8") as fh:
    HEADER_TEXT = fh.read()

EXTRA = """
/**
 * HITS-like: two output vectors.
 * @param[out] hubs, authorities  new PSV_FP32 vectors
 * @param[out] iterations  may be NULL
 */
PSV_API psv_status psv_zz_hits(psv_vector **hubs, psv_vector **authorities,
                               int32_t *iterations, const psv_matrix *A, double tolerance,
                               int32_t max_iterations);

/** RWR-like: from nseeds seed vertices. */
PSV_API psv_status psv_zz_rwr(psv_vector **rank, int32_t *iterations, const psv_matrix *A,
                              const int64_t *seeds, int64_t nseeds, double restart,
                              double tolerance, int32_t max_iterations);

/** Degrees into a caller array of n entries. */
PSV_API psv_status psv_zz_degrees(const psv_matrix *A, int64_t *degrees, int64_t n);

/**
 * A host output array whose length is no parameter's name: the doc says "array".
 * @param[out] out_host  host array of n * k floats
 * @param[out] total     the sum
 * @param[in]  k         >= 1
 */
PSV_API psv_status psv_zz_batch(float *out_host, double *total, const psv_matrix *A,
                                int32_t k);
#define PSV_NEW_CONSTANT (PSV_VERSION_NUMBER + 1)
#define PSV_DEFAULT_DAMPING 0.85  /* a double */
#define PSV_VERSION_STRING "0.1.0"
"""


def with_extra(text):
    i = text.rindex("#ifdef __cplusplus")
    return text[:i] + EXTRA + text[i:]


class Coverage(unittest.TestCase):
    def setUp(self):
        self.h = gb.parse_header(HEADER_TEXT)
        self.out = gb.outputs(HEADER_TEXT)

    def test_every_function_and_constant_everywhere(self):
        protos = re.findall(r"\bPSV_API\s+[^;(]*?\b(\w+)\s*\(", gb.strip_comments(HEADER_TEXT))
        self.assertEqual(protos, [f.name for f in self.h.funcs])
        self.assertGreater(len(protos), 40)
        defines = re.findall(r"^[ \t]*#[ \t]*define[ \t]+(PSV_\w+)[ \t]+\S", HEADER_TEXT, re.M)
        self.assertEqual(defines, [c[0] for c in self.h.consts])
        f90, rs, jl = (self.out[gb.OUT_FORTRAN], self.out[gb.OUT_RUST], self.out[gb.OUT_JULIA])
        for name in protos:
            self.assertIn('bind(C, name="%s")' % name, f90.replace("&\n        ", ""))
            self.assertRegex(rs, r"pub fn %s\(" % name)
            self.assertIn("ccall((:%s, libpsv)" % name, jl)
        for name in defines:
            self.assertRegex(f90, r":: %s(_CONST)? = " % name)
            self.assertIn("pub const %s:" % name, rs)
            self.assertIn("const %s = " % name, jl)

    def test_structs(self):
        structs = dict(self.h.structs)
        self.assertEqual(list(structs), ["psv_tuning_info", "psv_id", "psv_matrix_info", "psv_tile_info"])
        self.assertEqual(gb.layout(structs["psv_tuning_info"]), (56, 8))
        self.assertEqual(gb.layout(structs["psv_id"]), (256, 8))  # PSV_ID_BYTES, opaque
        mi = dict((f[1], f) for f in structs["psv_matrix_info"])
        # device_bytes and peak_bytes took a word each, the performance model's fields five
        self.assertEqual(mi["reserved"], ("int64_t", "reserved", 1))
        self.assertEqual(mi["padding_ratio"][0], "double")
        self.assertEqual(mi["predicted_ms"][0], "double")
        self.assertEqual(gb.layout(structs["psv_tile_info"]), (104, 8))

    def test_version_collision_renamed_in_fortran_only(self):
        f90 = self.out[gb.OUT_FORTRAN]
        self.assertIn("PSV_VERSION_NUMBER_CONST = 100", f90)
        self.assertIn("pub const PSV_VERSION_NUMBER: i32 = 100;", self.out[gb.OUT_RUST])


class Tables(unittest.TestCase):
    """psv.h's operators and kernels match src/core's tables and the Rust crate's Op enum."""

    def test_agree_now(self):
        self.assertEqual(gb.check_tables(HEADER_TEXT), [])
        self.assertEqual(gb.header_block(HEADER_TEXT, "psv_op")[:2], ["PSV_NOOP", "PSV_PLUS"])
        self.assertEqual(len(gb.header_block(HEADER_TEXT, "psv_kernel")), 6)

    def test_operator_missing_from_table(self):
        i = HEADER_TEXT.index("#define PSV_NOOP")
        i = HEADER_TEXT.index("\n", i) + 1
        text = HEADER_TEXT[:i] + "#define PSV_ZZOP      99  /* a new operator */\n" + HEADER_TEXT[i:]
        problems = gb.check_tables(text)
        self.assertTrue(any("PSV_ZZOP" in p and "operators.def" in p for p in problems), problems)
        self.assertTrue(any("PSV_ZZOP" in p and "lib.rs" in p for p in problems), problems)

    def test_table_entry_missing_from_header(self):
        text = re.sub(r"^#define PSV_KERNEL_CSR .*$", "", HEADER_TEXT, flags=re.M)
        problems = gb.check_tables(text)
        self.assertTrue(any("PSV_KERNEL_CSR" in p and "kernels.def" in p for p in problems), problems)


class NewPrototypes(unittest.TestCase):
    """A header that gained functions needs only a re-run of the generator."""

    def setUp(self):
        self.text = with_extra(HEADER_TEXT)
        self.out = gb.outputs(self.text)
        self.f90 = self.out[gb.OUT_FORTRAN]

    def block(self, name):
        m = re.search(r"function %s\(.*?end function %s" % (name, name), self.f90, re.S)
        self.assertIsNotNone(m, name)
        return m.group(0)

    def test_fortran_mappings(self):
        hits = self.block("psv_zz_hits")
        self.assertIn("type(c_ptr), intent(out) :: hubs", hits)
        self.assertIn("integer(c_int32_t), intent(out), optional :: iterations  !", hits)
        self.assertIn("type(c_ptr), value :: A", hits)
        self.assertIn("real(c_double), value :: tolerance", hits)
        rwr = self.block("psv_zz_rwr")
        self.assertIn("integer(c_int64_t), intent(in), optional :: seeds(*)", rwr)
        self.assertIn("integer(c_int64_t), value :: nseeds", rwr)
        deg = self.block("psv_zz_degrees")
        self.assertIn("integer(c_int64_t), intent(out), optional :: degrees(*)", deg)
        batch = self.block("psv_zz_batch")
        self.assertIn("real(c_float), intent(out), optional :: out_host(*)", batch)
        self.assertIn("real(c_double), intent(out), optional :: total  !", batch)
        self.assertIn("PSV_NEW_CONSTANT = 101", self.f90)
        self.assertIn("real(c_double), parameter :: PSV_DEFAULT_DAMPING = 0.85_c_double", self.f90)
        self.assertIn('character(len=*), parameter :: PSV_VERSION_STRING = "0.1.0"', self.f90)
        # Existing mappings.
        self.assertIn("intent(inout), optional :: n  !", self.block("psv_matrix_extract_tuples"))
        self.assertIn("intent(out), optional :: rows(*)", self.block("psv_matrix_extract_tuples"))
        self.assertIn("intent(out), optional :: nrows  !", self.block("psv_matrix_nrows"))
        self.assertIn("character(kind=c_char), intent(in) :: path(*)",
                      self.block("psv_matrix_read"))
        # a string whose @param gives NULL a meaning may be absent
        self.assertIn("character(kind=c_char), intent(in), optional :: path(*)",
                      self.block("psv_context_tune"))
        self.assertIn("type(psv_matrix_info), intent(out) :: info", self.block("psv_matrix_info_get"))
        self.assertRegex(self.f90, r"subroutine psv_matrix_free\(A\)[^\n]*\n.*\n.*\n"
                         r"\s*type\(c_ptr\), intent\(inout\) :: A")

    def test_rust_and_julia(self):
        rs, jl = self.out[gb.OUT_RUST], self.out[gb.OUT_JULIA]
        self.assertIn("pub fn psv_zz_rwr(", rs)
        self.assertIn("seeds: *const i64,", rs)
        self.assertIn("pub const PSV_DEFAULT_DAMPING: f64 = 0.85;", rs)
        self.assertIn('pub const PSV_VERSION_STRING: &str = "0.1.0";', rs)
        self.assertIn('const PSV_VERSION_STRING = "0.1.0"', jl)
        self.assertIn("hubs: *mut *mut psv_vector,", rs)
        self.assertIn("(Ptr{Ptr{psv_vector}}, Ptr{Ptr{psv_vector}}, Ptr{Int32}, Ptr{psv_matrix}, "
                      "Cdouble, Int32)", jl)

    def test_fortran_compiles(self):
        gfortran = shutil.which("gfortran")
        if not gfortran:
            self.skipTest("no gfortran")
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "psv_c.f90")
            with open(src, "w") as fh:
                fh.write(self.f90)
            r = subprocess.run([gfortran, "-std=f2018", "-Wall", "-Werror", "-c", src],
                               cwd=d, capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)

    def test_rust_compiles(self):
        rustc = shutil.which("rustc")
        if not rustc:
            self.skipTest("no rustc")
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "lib.rs")
            with open(src, "w") as fh:
                fh.write(self.out[gb.OUT_RUST])
            r = subprocess.run([rustc, "--edition", "2021", "--crate-type", "lib", "-D", "warnings",
                                "--out-dir", d, src], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)

    def test_unsupported_type_is_an_error_not_a_guess(self):
        bad = HEADER_TEXT.replace("#ifdef __cplusplus\n}",
                                  "PSV_API psv_status psv_bad(struct foo *x);\n#ifdef __cplusplus\n}", 1)
        with self.assertRaises(gb.ParseError):
            gb.outputs(bad)


class JuliaText(unittest.TestCase):
    """Psv.jl cannot be executed here (no Julia); check what can be checked as text."""

    def setUp(self):
        self.jl = gb.outputs(with_extra(HEADER_TEXT))[gb.OUT_JULIA]

    @staticmethod
    def split_top(s):
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch in "({[":
                depth += 1
            elif ch in ")}]":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur.strip())
                cur = ""
            else:
                cur += ch
        if cur.strip():
            parts.append(cur.strip())
        return parts

    def test_ccall_arity(self):
        n = 0
        for m in re.finditer(r"^(\w+)\(([^)]*)\) =\n    ccall\(\(:(\w+), libpsv\), (\w+), "
                             r"\((.*)\)((?:, \w+)*)\)$", self.jl, re.M):
            name, args, cname, _ret, types, passed = m.groups()
            self.assertEqual(name, cname)
            args = [a.strip() for a in args.split(",") if a.strip()]
            types = [t for t in self.split_top(types) if t]
            passed = [p.strip() for p in passed.split(",") if p.strip()]
            self.assertEqual(len(types), len(args), name)
            self.assertEqual(passed, args, name)
            if len(types) == 1:
                self.assertIn(",)", m.group(0), "a 1-tuple needs its comma: " + name)
            n += 1
        self.assertEqual(n, len(re.findall(r"ccall\(", self.jl)))
        self.assertIn("psv_zz_hits", self.jl)

    def test_blocks_and_exports(self):
        body = re.sub(r"#.*", "", self.jl)
        opens = len(re.findall(r"^(module|struct|mutable struct)\b", body, re.M))
        ends = len(re.findall(r"^end\b", body, re.M))
        self.assertEqual(opens, ends)
        for name in re.findall(r"^(\w+)\(.*\) =$", self.jl, re.M):
            self.assertIn("export %s\n" % name, self.jl)
        self.assertNotRegex(body, r"\b(type|function|end)\s*[,)]", "keyword as argument name")


if __name__ == "__main__":
    unittest.main(verbosity=2)
