#include "tests/cuda/fake_device_runtime.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <thread>

#include "collectives/reduce/reduce_kernels.h"
#include "weft/error.h"

namespace weft::testing {

using cuda::Event;
using cuda::IpcMemHandle;
using cuda::Stream;

// A stream: one thread running its queue in order.
class FakeDeviceRuntime::Queue {
 public:
  explicit Queue(std::chrono::microseconds delay) : delay_(delay), thread_([this] { loop(); }) {}
  ~Queue() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void push(std::function<void()> work) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      work_.push_back(std::move(work));
      ++queued_;
    }
    wake_.notify_all();
  }
  void drain() {
    std::unique_lock<std::mutex> lock(mutex_);
    const uint64_t target = queued_;
    wake_.wait(lock, [&] { return finished_ >= target; });
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || !work_.empty(); });
      if (work_.empty()) return;
      std::function<void()> work = std::move(work_.front());
      work_.pop_front();
      lock.unlock();
      if (delay_.count() > 0) std::this_thread::sleep_for(delay_);
      work();
      lock.lock();
      ++finished_;
      wake_.notify_all();
    }
  }

  const std::chrono::microseconds delay_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> work_;
  uint64_t queued_ = 0, finished_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

struct FakeDeviceRuntime::EventState {
  std::mutex mutex;
  std::condition_variable changed;
  uint64_t recorded = 0, reached = 0;
};

namespace {

// What a fake handle holds.
struct HandleBody {
  uint32_t magic = 0x4b414657;  // "WFAK"
  int32_t pid = 0;
  int32_t fd = -1;
  int32_t device = 0;
  uint64_t size = 0;
  uint64_t id = 0;
};
static_assert(sizeof(HandleBody) <= sizeof(IpcMemHandle::bytes));

[[noreturn]] void fail(const std::string& what) {
  throw Error(ErrorCode::kInternal, "fake device runtime: " + what);
}

// An event's native handle owns a reference to its state, and so does every queued
// operation that refers to it: as with CUDA, an event may be destroyed while work
// queued on it is pending.
using EventPtr = std::shared_ptr<FakeDeviceRuntime::EventState>;
const EventPtr& state(Event event) { return *static_cast<EventPtr*>(event.native); }

}  // namespace

FakeDeviceRuntime::FakeDeviceRuntime(int devices, std::chrono::microseconds delay)
    : devices_(devices), delay_(delay) {}

FakeDeviceRuntime::~FakeDeviceRuntime() = default;

cuda::DeviceUuid FakeDeviceRuntime::device_uuid(int device) {
  if (device < 0 || device >= devices_) fail("device_uuid: no device " + std::to_string(device));
  cuda::DeviceUuid uuid;
  std::memcpy(uuid.bytes.data(), "fake", 4);
  uuid.bytes[4] = static_cast<uint8_t>(device);
  return uuid;
}

std::string FakeDeviceRuntime::describe() {
  return "fake (" + std::to_string(devices_) + " devices in host memory)";
}

const FakeDeviceRuntime::Region* FakeDeviceRuntime::find(const void* p) {
  auto* b = static_cast<const std::byte*>(p);
  for (const auto* list : {&allocations_, &mappings_}) {
    for (const Region& r : *list) {
      if (b >= r.base && b < r.base + r.size) return &r;
    }
  }
  return nullptr;
}

std::string FakeDeviceRuntime::check_pointer(const void* p, uint64_t bytes, int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  const Region* r = find(p);
  if (r == nullptr) return "it is host memory";
  if (r->device != device) return "it is memory of cuda:" + std::to_string(r->device);
  if (static_cast<const std::byte*>(p) + bytes > r->base + r->size) {
    return "it runs past the end of its allocation";
  }
  return "";
}

cuda::AllocationRange FakeDeviceRuntime::allocation_of(const void* p, int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  const Region* r = find(p);
  if (r == nullptr) fail("allocation_of: not device memory");
  return {r->base, r->size};
}

IpcMemHandle FakeDeviceRuntime::export_memory(const void* base, int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Region& r : allocations_) {
    if (r.base == base) {
      HandleBody body{0x4b414657, static_cast<int32_t>(getpid()), r.fd, r.device, r.size, r.id};
      IpcMemHandle handle;
      std::memcpy(handle.bytes.data(), &body, sizeof body);
      return handle;
    }
  }
  fail("export_memory: not the base of an allocation of this process");
}

void* FakeDeviceRuntime::open_memory(const IpcMemHandle& handle, int device) {
  HandleBody body;
  std::memcpy(&body, handle.bytes.data(), sizeof body);
  if (body.magic != 0x4b414657) fail("open_memory: not a handle");
  if (failing_opens_ > 0) {
    --failing_opens_;
    fail("open_memory: resource already mapped");
  }
  const std::string path = "/proc/" + std::to_string(body.pid) + "/fd/" + std::to_string(body.fd);
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) fail("open_memory: open " + path + ": " + std::strerror(errno));
  void* base = ::mmap(nullptr, body.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (base == MAP_FAILED) fail(std::string("open_memory: mmap: ") + std::strerror(errno));
  std::lock_guard<std::mutex> lock(mutex_);
  mappings_.push_back({static_cast<std::byte*>(base), body.size, body.device, -1, body.id});
  return base;
}

void FakeDeviceRuntime::close_memory(void* base, int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = mappings_.begin(); it != mappings_.end(); ++it) {
    if (it->base == base) {
      ::munmap(it->base, it->size);
      mappings_.erase(it);
      return;
    }
  }
  fail("close_memory: not an opened handle");
}

std::string FakeDeviceRuntime::why_no_dma_buf(int) {
  if (dma_buf_) return "";
  return "the fake device runtime's memory is host memory, not a dma-buf";
}

cuda::DmaBufRange FakeDeviceRuntime::export_dma_buf(const void* p, uint64_t bytes, int device) {
  if (!dma_buf_) fail("export_dma_buf: " + why_no_dma_buf(device));
  std::lock_guard<std::mutex> lock(mutex_);
  const Region* r = find(p);
  // Only an allocation of this process has a memfd: an opened peer's has none to hand out.
  if (r == nullptr || r->fd < 0 || r->device != device ||
      bytes > r->size - static_cast<uint64_t>(static_cast<const std::byte*>(p) - r->base)) {
    fail("export_dma_buf: not memory allocated on device " + std::to_string(device));
  }
  // The whole allocation is the dma-buf, as whole pages: what the soft verbs device's
  // ibv_reg_dmabuf_mr finds mapped at the allocation's address.
  const int fd = ::fcntl(r->fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) fail("export_dma_buf: dup");
  const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  ++dma_buf_exports_;
  return {fd, r->base, (r->size + page - 1) / page * page};
}

void* FakeDeviceRuntime::allocate_device(uint64_t bytes, int device) {
  if (device < 0 || device >= devices_)
    fail("allocate_device: no device " + std::to_string(device));
  const uint64_t size = std::max<uint64_t>(bytes, 1);
  int fd = ::memfd_create("weft-fake-device", MFD_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(size)) != 0) fail("allocate_device: memfd");
  void* base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) fail("allocate_device: mmap");
  std::lock_guard<std::mutex> lock(mutex_);
  allocations_.push_back({static_cast<std::byte*>(base), size, device, fd, next_id_++});
  return base;
}

void FakeDeviceRuntime::free_device(void* p, int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = allocations_.begin(); it != allocations_.end(); ++it) {
    if (it->base == p) {
      ::munmap(it->base, it->size);
      ::close(it->fd);
      allocations_.erase(it);
      return;
    }
  }
  fail("free_device: not an allocation");
}

void* FakeDeviceRuntime::allocate_pinned(uint64_t bytes) {
  auto* p = static_cast<std::byte*>(::operator new(std::max<uint64_t>(bytes, 1)));
  std::lock_guard<std::mutex> lock(mutex_);
  pinned_[p] = bytes;
  return p;
}

void FakeDeviceRuntime::free_pinned(void* p) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pinned_.erase(static_cast<std::byte*>(p));
  }
  ::operator delete(p);
}

bool FakeDeviceRuntime::is_pinned(const void* p, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto* b = static_cast<const std::byte*>(p);
  auto it = pinned_.upper_bound(const_cast<std::byte*>(b));
  if (it == pinned_.begin()) return false;
  --it;
  return b >= it->first && b + bytes <= it->first + it->second;
}

Stream FakeDeviceRuntime::create_stream(int device) { return Stream{new Queue(delay_), device}; }

void FakeDeviceRuntime::destroy_stream(Stream stream) {
  if (stream.native != nullptr) {
    queue_of(stream).drain();
    delete static_cast<Queue*>(stream.native);
  }
}

FakeDeviceRuntime::Queue& FakeDeviceRuntime::queue_of(Stream stream) {
  if (stream.native != nullptr) return *static_cast<Queue*>(stream.native);
  std::lock_guard<std::mutex> lock(mutex_);
  auto& queue = default_queues_[stream.device];
  if (!queue) queue = std::make_unique<Queue>(delay_);
  return *queue;
}

Event FakeDeviceRuntime::create_event(int device) {
  return Event{new EventPtr(std::make_shared<EventState>()), device};
}

void FakeDeviceRuntime::destroy_event(Event event) { delete static_cast<EventPtr*>(event.native); }

void FakeDeviceRuntime::record(Event event, Stream stream) {
  EventPtr e = state(event);
  uint64_t mark;
  {
    std::lock_guard<std::mutex> lock(e->mutex);
    mark = ++e->recorded;
  }
  queue_of(stream).push([e, mark] {
    std::lock_guard<std::mutex> lock(e->mutex);
    e->reached = std::max(e->reached, mark);
    e->changed.notify_all();
  });
}

void FakeDeviceRuntime::wait_event(Stream stream, Event event) {
  EventPtr e = state(event);
  uint64_t mark;
  {
    std::lock_guard<std::mutex> lock(e->mutex);
    mark = e->recorded;
  }
  queue_of(stream).push([e, mark] {
    std::unique_lock<std::mutex> lock(e->mutex);
    e->changed.wait(lock, [&] { return e->reached >= mark; });
  });
}

bool FakeDeviceRuntime::event_done(Event event) {
  EventState& e = *state(event);
  std::lock_guard<std::mutex> lock(e.mutex);
  return e.reached >= e.recorded;
}

void FakeDeviceRuntime::synchronize_event(Event event) {
  EventState& e = *state(event);
  std::unique_lock<std::mutex> lock(e.mutex);
  const uint64_t mark = e.recorded;
  e.changed.wait(lock, [&] { return e.reached >= mark; });
}

void FakeDeviceRuntime::synchronize_stream(Stream stream) { queue_of(stream).drain(); }

void FakeDeviceRuntime::copy(void* dst, const void* src, uint64_t bytes, Stream stream) {
  if (is_pinned(dst, bytes) || is_pinned(src, bytes)) bytes_through_host_ += bytes;
  queue_of(stream).push([dst, src, bytes] { std::memmove(dst, src, bytes); });
}

void FakeDeviceRuntime::reduce(const cuda::ReduceTask& task, Stream stream) {
  if (task.inputs.empty() || task.outputs.empty()) fail("reduce: no inputs or outputs");
  ++reductions_;
  std::vector<const void*> inputs(task.inputs.begin(), task.inputs.end());
  std::vector<void*> outputs(task.outputs.begin(), task.outputs.end());
  const ReduceOp op = task.op;
  const DType dtype = task.dtype;
  const uint64_t count = task.count;
  const uint64_t divisor = task.divisor;
  queue_of(stream).push([=] {
    const uint64_t bytes = count * dtype_size(dtype);
    std::vector<std::byte> result(bytes);
    std::memcpy(result.data(), inputs[0], bytes);
    for (size_t i = 1; i < inputs.size(); ++i) {
      collectives::reduce::reduce_elements(op, dtype, result.data(), result.data(), inputs[i],
                                           count);
    }
    if (divisor > 1) collectives::reduce::divide_elements(dtype, result.data(), count, divisor);
    for (void* out : outputs) std::memcpy(out, result.data(), bytes);
  });
}

void FakeDeviceRuntime::enqueue(Stream stream, std::function<void()> work) {
  queue_of(stream).push(std::move(work));
}

int FakeDeviceRuntime::open_mappings() {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(mappings_.size());
}

int FakeDeviceRuntime::pinned_allocations() {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(pinned_.size());
}

FakeDeviceRuntime& install_fake_device_runtime(int devices, std::chrono::microseconds delay) {
  auto* runtime = new FakeDeviceRuntime(devices, delay);  // lives as long as the process
  cuda::set_device_runtime(runtime);
  return *runtime;
}

}  // namespace weft::testing
