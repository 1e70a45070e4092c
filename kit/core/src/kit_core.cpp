// kit/core/src/kit_core.cpp — kit_core's sources without nlohmann::json, in one translation
// unit.
//
// The xtensor headers are parsed once, not ten times, on the cold build a new student waits
// for; the sources that use nlohmann::json are the other unit, kit_core_json.cpp, which a
// second core compiles meanwhile. Written out rather than CMake's UNITY_BUILD, whose
// generated file names each source by its absolute path: included by relative names, the
// object is the same in every copy of the kit, and a compiler cache finds it there
// (reference_data_folder.cpp holds the one absolute path).
#include "any_tensor.cpp"
#include "cases.cpp"
#include "compare.cpp"
#include "error_shape.cpp"
#include "golden_files.cpp"
#include "laws.cpp"
#include "npy.cpp"
#include "runner.cpp"
#include "student_code.cpp"
#include "throw_site.cpp"
#include "torch_format.cpp"
