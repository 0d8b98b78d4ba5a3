#include "serving/request_queue.h"

#include <algorithm>

#include "serving/sharing.h"

namespace tern::serving {

Status RequestQueue::Push(std::shared_ptr<TicketState> t) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return Status(StatusCode::kCancelled, "engine: shut down, request not queued");
    if (q_.size() >= max_queued_)
      return Status(StatusCode::kResourceExhausted,
                    "engine: " + std::to_string(q_.size()) + " requests wait (max_queued): request not queued");
    q_.push_back(std::move(t));
  }
  cv_.notify_one();
  return Status::Ok();
}

std::vector<std::shared_ptr<TicketState>> RequestQueue::PopCall(size_t max_inputs) {
  std::vector<std::shared_ptr<TicketState>> call;
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return closed_ || !q_.empty(); });
  if (q_.empty()) return call;
  call.push_back(std::move(q_.front()));
  q_.pop_front();
  size_t inputs = call[0]->inputs();
  if (call[0]->may_share) {
    for (auto it = q_.begin(); it != q_.end() && inputs < max_inputs;) {
      if (inputs + (*it)->inputs() <= max_inputs && SameCall(*call[0], **it)) {
        inputs += (*it)->inputs();
        call.push_back(std::move(*it));
        it = q_.erase(it);
      } else {
        ++it;
      }
    }
  }
  return call;
}

std::vector<std::shared_ptr<TicketState>> RequestQueue::TakeSharing(const TicketState& first, size_t max_inputs) {
  std::vector<std::shared_ptr<TicketState>> taken;
  std::lock_guard<std::mutex> lock(mu_);
  size_t inputs = 0;
  // From the front only: a waiting request that cannot share stops the taking, so the running call ends and
  // that request is served next (first come, first served; nothing waits behind a call that never ends).
  while (!q_.empty() && inputs + q_.front()->inputs() <= max_inputs && SameCall(first, *q_.front())) {
    inputs += q_.front()->inputs();
    taken.push_back(std::move(q_.front()));
    q_.pop_front();
  }
  return taken;
}

bool RequestQueue::Remove(const TicketState* t) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find_if(q_.begin(), q_.end(), [&](const std::shared_ptr<TicketState>& p) { return p.get() == t; });
  if (it == q_.end()) return false;
  q_.erase(it);
  return true;
}

std::vector<std::shared_ptr<TicketState>> RequestQueue::Close() {
  std::vector<std::shared_ptr<TicketState>> left;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    left.assign(std::make_move_iterator(q_.begin()), std::make_move_iterator(q_.end()));
    q_.clear();
  }
  cv_.notify_all();
  return left;
}

size_t RequestQueue::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return q_.size();
}

}  // namespace tern::serving
