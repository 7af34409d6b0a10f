// A min-heap of integer ids in [0, capacity) keyed by doubles, with
// decrease-key: an id is in the heap at most once, at the position that
// pos_ records.  A Dijkstra search that lowers a vertex's distance several
// times (about six times per finalised column on the sparse LAPs of point
// sets) moves one entry up instead of pushing a duplicate.  Equal keys pop
// in increasing id order, as a heap of (key, id) pairs would.  Four
// children per node: half the depth of a binary heap, the children side by
// side in 64 bytes.
#pragma once

#include <vector>

namespace jaxmatch {

class IndexedMinHeap {
 public:
  struct Node {
    double key;
    int id;
  };

  explicit IndexedMinHeap(int capacity) : pos_(capacity, -1) {}

  bool empty() const { return nodes_.empty(); }

  // Inserts `id` with `key`, or lowers its key to `key` when it is in the
  // heap already (a larger key than the current one is ignored).
  void Push(int id, double key) {
    int at = pos_[id];
    if (at < 0) {
      at = static_cast<int>(nodes_.size());
      nodes_.push_back({key, id});
    } else if (Less(nodes_[at], Node{key, id})) {
      return;
    } else {
      nodes_[at].key = key;
    }
    SiftUp(at);
  }

  // Removes and returns the least node.
  Node Pop() {
    const Node top = nodes_[0];
    pos_[top.id] = -1;
    const Node last = nodes_.back();
    nodes_.pop_back();
    if (!nodes_.empty()) {
      nodes_[0] = last;
      SiftDown(0);
    }
    return top;
  }

  // Empties the heap in O(size).
  void Clear() {
    for (const Node& node : nodes_) pos_[node.id] = -1;
    nodes_.clear();
  }

 private:
  static constexpr int kArity = 4;

  static bool Less(const Node& a, const Node& b) {
    return a.key < b.key || (a.key == b.key && a.id < b.id);
  }

  void Place(int at, const Node& node) {
    nodes_[at] = node;
    pos_[node.id] = at;
  }

  void SiftUp(int at) {
    const Node node = nodes_[at];
    while (at > 0) {
      const int parent = (at - 1) / kArity;
      if (!Less(node, nodes_[parent])) break;
      Place(at, nodes_[parent]);
      at = parent;
    }
    Place(at, node);
  }

  void SiftDown(int at) {
    const Node node = nodes_[at];
    const int size = static_cast<int>(nodes_.size());
    for (;;) {
      const int first = at * kArity + 1;
      if (first >= size) break;
      const int last = first + kArity < size ? first + kArity : size;
      int best = first;
      for (int c = first + 1; c < last; ++c)
        if (Less(nodes_[c], nodes_[best])) best = c;
      if (!Less(nodes_[best], node)) break;
      Place(at, nodes_[best]);
      at = best;
    }
    Place(at, node);
  }

  std::vector<Node> nodes_;
  std::vector<int> pos_;
};

}  // namespace jaxmatch
