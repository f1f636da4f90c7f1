package kubelet

import (
	"fmt"
	"net/netip"
	"sync"
)

// allocator hands out Pod addresses from each Node's range, round robin, never one in use.
type allocator struct {
	mu     sync.Mutex
	inUse  map[netip.Addr]struct{}
	cursor map[int]int // node index -> offset tried next
}

func newAllocator() *allocator {
	return &allocator{inUse: map[netip.Addr]struct{}{}, cursor: map[int]int{}}
}

func (a *allocator) next(node nodeSpec) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	base := node.index * podsPerNode
	// Offsets 1 to podsPerNode-2: not the range's network or broadcast address.
	for range podsPerNode - 2 {
		offset := a.cursor[node.index]%(podsPerNode-2) + 1
		a.cursor[node.index] = offset
		ip := addrPlus(podRangeBase, base+offset)
		if _, taken := a.inUse[ip]; !taken {
			a.inUse[ip] = struct{}{}
			return ip.String(), nil
		}
	}
	return "", fmt.Errorf("node %s has no free Pod address", node.name())
}

func (a *allocator) reserve(ip string) {
	if addr, err := netip.ParseAddr(ip); err == nil {
		a.mu.Lock()
		a.inUse[addr] = struct{}{}
		a.mu.Unlock()
	}
}

func (a *allocator) release(ip string) {
	if addr, err := netip.ParseAddr(ip); err == nil {
		a.mu.Lock()
		delete(a.inUse, addr)
		a.mu.Unlock()
	}
}
