// weft._C: the extension module. create_backend is what torch.distributed's backend
// registry calls (through weft/torch.py) for every group made with backend "weft".
#include <torch/csrc/utils/pybind.h>
#include <torch/python.h>
#include <weft/version.h>

#include "backend.h"

namespace {

c10::intrusive_ptr<c10d::Backend> create_backend(const c10::intrusive_ptr<c10d::Store>& store,
                                                 int rank, int size, double timeout_seconds,
                                                 std::vector<int64_t> global_ranks,
                                                 const std::string& group_name) {
  auto timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000.0));
  return c10::make_intrusive<weft::torch_backend::WeftBackend>(store, rank, size, timeout,
                                                               std::move(global_ranks), group_name);
}

}  // namespace

PYBIND11_MODULE(_C, module) {
  module.doc() = "weft's torch.distributed backend";
  module.def("create_backend", &create_backend, py::arg("store"), py::arg("rank"), py::arg("size"),
             py::arg("timeout_seconds"), py::arg("global_ranks"), py::arg("group_name"),
             py::call_guard<py::gil_scoped_release>());
  module.attr("weft_version") = weft::kVersion;
}
