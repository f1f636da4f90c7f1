// The peer kube-proxy is built like: client-go's SharedInformerFactory over EndpointSlices, in
// protobuf (rest.Config.ContentType, as kube-proxy sets it), with the agent's label selector,
// keeping per Service the ready ip:ports merged across its slices (kubernetes.io/service-name).
// benchmarks/control_plane_cpu.py runs it beside the agent; benchmarks/control-plane-cpu.sh
// builds it into benchmarks/target/.
//
//	client-go-watcher <kubeconfig>
//
// It answers the harness as the Python and JS peers do: "STARTED" once the informer runs, then
// per stdin line "report" -> "REPORT <events> <last monotonic ns> <services> <writes>" and
// "digest [namespace]" -> "DIGEST <sha256 over "ns/name ip:port,...\n" per Service, sorted as
// text; only namespace's Services when it is given>".
package main

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	discovery "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

const selector = "mesh-managed=true"

// registry: per Service, each slice's ready ip:ports, and the merged sorted set last written.
type registry struct {
	mu     sync.Mutex
	slices map[string]map[string][]string // service key -> slice name -> ready ip:ports
	merged map[string]string              // service key -> "ip:port,ip:port" (sorted)
	events int64
	writes int64
	lastNs int64
}

func serviceKey(s *discovery.EndpointSlice) (string, bool) {
	name, ok := s.Labels[discovery.LabelServiceName]
	return s.Namespace + "/" + name, ok && name != ""
}

// ready is kube-proxy's reading: a nil ready condition counts as ready.
func readyAddresses(s *discovery.EndpointSlice) []string {
	var out []string
	for _, ep := range s.Endpoints {
		if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
			continue
		}
		for _, ip := range ep.Addresses {
			for _, p := range s.Ports {
				if p.Port != nil {
					out = append(out, ip+":"+strconv.Itoa(int(*p.Port)))
				}
			}
		}
	}
	return out
}

// set records one slice's addresses (nil: the slice is gone) and rewrites its Service's merged
// set when that changed.
func (r *registry) set(s *discovery.EndpointSlice, addresses []string, gone bool) {
	key, ok := serviceKey(s)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events++
	r.lastNs = clockMonotonicNs()
	if !ok {
		return
	}
	bySlice := r.slices[key]
	if gone {
		delete(bySlice, s.Name)
	} else {
		if bySlice == nil {
			bySlice = map[string][]string{}
			r.slices[key] = bySlice
		}
		bySlice[s.Name] = addresses
	}
	if len(bySlice) == 0 {
		delete(r.slices, key)
		if _, held := r.merged[key]; held {
			delete(r.merged, key)
			r.writes++
		}
		return
	}
	unique := map[string]struct{}{}
	for _, list := range bySlice {
		for _, a := range list {
			unique[a] = struct{}{}
		}
	}
	sorted := make([]string, 0, len(unique))
	for a := range unique {
		sorted = append(sorted, a)
	}
	sort.Strings(sorted)
	joined := strings.Join(sorted, ",")
	if held, ok := r.merged[key]; !ok || held != joined {
		r.merged[key] = joined
		r.writes++
	}
}

// digest is over every Service, or only namespace's when it is not empty.
func (r *registry) digest(namespace string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]string, 0, len(r.merged))
	for k := range r.merged {
		if namespace == "" || strings.HasPrefix(k, namespace+"/") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s %s\n", k, r.merged[k])
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func sliceOf(obj interface{}) *discovery.EndpointSlice {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	s, _ := obj.(*discovery.EndpointSlice)
	return s
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: client-go-watcher <kubeconfig>")
		os.Exit(2)
	}
	config, err := clientcmd.BuildConfigFromFlags("", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	config.ContentType = "application/vnd.kubernetes.protobuf"
	config.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r := &registry{slices: map[string]map[string][]string{}, merged: map[string]string{}}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }))
	informer := factory.Discovery().V1().EndpointSlices().Informer()
	_, err = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj interface{}) {
			if s := sliceOf(obj); s != nil {
				r.set(s, readyAddresses(s), false)
			}
		},
		UpdateFunc: func(_, obj interface{}) {
			if s := sliceOf(obj); s != nil {
				r.set(s, readyAddresses(s), false)
			}
		},
		DeleteFunc: func(obj interface{}) {
			if s := sliceOf(obj); s != nil {
				r.set(s, nil, true)
			}
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stop := make(chan struct{})
	factory.Start(stop)
	fmt.Println("STARTED")
	lines := bufio.NewScanner(os.Stdin)
	for lines.Scan() {
		words := append(strings.Fields(lines.Text()), "", "")
		switch words[0] {
		case "report":
			r.mu.Lock()
			fmt.Printf("REPORT %d %d %d %d\n", r.events, r.lastNs, len(r.merged), r.writes)
			r.mu.Unlock()
		case "digest":
			fmt.Printf("DIGEST %s\n", r.digest(words[1]))
		case "quit":
			os.Exit(0)
		}
	}
	os.Exit(0)
}
