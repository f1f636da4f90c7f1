// Package kubelet is a stand-in for the kubelets of a test cluster: it registers Nodes as API
// objects and plays each Pod's life as a kubelet whose containers start at once and pass their
// readiness checks. It runs no container. What it writes is what the real controllers then read:
// the scheduler binds Pods to these Nodes, and the EndpointSlice controller writes slices from the
// Pods' status.
//
// A Pod's life here:
//   - bound to a Node (spec.nodeName set), not yet running: its status becomes Running and Ready,
//     with an IP from the Node's pod range;
//   - deleted (deletionTimestamp set): a Pod with a preStop sleep hook stays terminating, and Ready,
//     for that sleep (bounded by its grace period), as a real kubelet keeps it while the hook runs;
//     any other Pod is removed at once, as a container that exits on SIGTERM;
//   - a status a test wrote itself (say Ready=False) is left alone once the Pod is running.
package kubelet

import (
	"context"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// Pod and host addresses come from 198.18.0.0/15, the range RFC 2544 sets aside for test networks.
// Not 127.0.0.0/8: the API server rejects loopback addresses in Endpoints and EndpointSlices, so the
// EndpointSlice controller could write no slice for such Pods. A test that connects to a Pod
// address does so inside a network namespace that holds it.
var (
	podRangeBase  = netip.MustParseAddr("198.18.0.0")
	hostRangeBase = netip.MustParseAddr("198.19.255.0")
)

const (
	podsPerNode = 4096 // each Node's pod range is a /20
	maxNodes    = 31   // /20 ranges that fit in the /15 below the host addresses
)

// Main runs the stand-in until SIGINT or SIGTERM and returns the process's exit code.
func Main(args []string) int {
	fs := flag.NewFlagSet("fake-kubelet", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster")
	nodes := fs.Int("nodes", 3, fmt.Sprintf("Nodes to register (at most %d)", maxNodes))
	zones := fs.Int("zones", 2, "zones the Nodes are spread over, round robin")
	region := fs.String("region", "region-1", "the Nodes' topology.kubernetes.io/region")
	workers := fs.Int("workers", 4, "Pods updated in parallel")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *nodes < 1 || *nodes > maxNodes || *zones < 1 {
		fmt.Fprintf(os.Stderr, "fake-kubelet: --nodes must be 1 to %d and --zones at least 1\n", maxNodes)
		return 2
	}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fake-kubelet: %v\n", err)
		return 1
	}
	// A rollout of hundreds of Pods is written here Pod by Pod: client-go's default 5 QPS would make
	// this stand-in, not the controllers, the slow part of every test.
	config.QPS, config.Burst = 500, 1000
	config.UserAgent = "fake-kubelet"
	client := kubernetes.NewForConfigOrDie(config)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	cluster := make([]nodeSpec, *nodes)
	for i := range cluster {
		cluster[i] = nodeSpec{index: i, zone: fmt.Sprintf("zone-%c", 'a'+i%*zones), region: *region}
	}
	if err := registerNodes(ctx, client, cluster); err != nil {
		fmt.Fprintf(os.Stderr, "fake-kubelet: registering Nodes: %v\n", err)
		return 1
	}
	k := newKubelet(client, cluster)
	k.run(ctx, *workers)
	return 0
}

type nodeSpec struct {
	index  int
	zone   string
	region string
}

func (n nodeSpec) name() string { return fmt.Sprintf("node-%d", n.index) }

func (n nodeSpec) hostIP() string { return addrPlus(hostRangeBase, n.index+1).String() }

func (n nodeSpec) podCIDR() string {
	return netip.PrefixFrom(addrPlus(podRangeBase, n.index*podsPerNode), 20).String()
}

func addrPlus(base netip.Addr, n int) netip.Addr {
	b := base.As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	v += uint32(n)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// registerNodes creates each Node if it is missing and marks it Ready with room for many Pods. No
// node lifecycle controller runs, so nothing marks them NotReady or taints them later.
func registerNodes(ctx context.Context, client kubernetes.Interface, cluster []nodeSpec) error {
	for _, n := range cluster {
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name: n.name(),
				Labels: map[string]string{
					"kubernetes.io/hostname":        n.name(),
					"kubernetes.io/os":              "linux",
					"kubernetes.io/arch":            "amd64",
					"topology.kubernetes.io/zone":   n.zone,
					"topology.kubernetes.io/region": n.region,
					"node.routesync.dev/fake":       "true",
				},
			},
			Spec: corev1.NodeSpec{PodCIDR: n.podCIDR(), PodCIDRs: []string{n.podCIDR()}},
		}
		created, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			created, err = client.CoreV1().Nodes().Get(ctx, n.name(), metav1.GetOptions{})
		}
		if err != nil {
			return err
		}
		// The TaintNodesByCondition admission plugin gives every new Node the not-ready NoSchedule
		// taint; the node lifecycle controller, which is not run here, would lift it once the Node
		// reports Ready. Lift it here, as that controller would.
		if len(created.Spec.Taints) > 0 {
			created.Spec.Taints = nil
			if created, err = client.CoreV1().Nodes().Update(ctx, created, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
		capacity := corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("64"),
			corev1.ResourceMemory: resource.MustParse("256Gi"),
			corev1.ResourcePods:   resource.MustParse(fmt.Sprint(podsPerNode - 2)),
		}
		now := metav1.Now()
		created.Status = corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: capacity,
			Phase:       corev1.NodeRunning,
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				Message: "fake-kubelet", LastHeartbeatTime: now, LastTransitionTime: now,
			}},
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: n.hostIP()},
				{Type: corev1.NodeHostName, Address: n.name()},
			},
			NodeInfo: corev1.NodeSystemInfo{
				KubeletVersion: "fake", OperatingSystem: "linux", Architecture: "amd64",
			},
		}
		if _, err := client.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			return err
		}
		klog.InfoS("Node ready", "node", n.name(), "zone", n.zone, "podCIDR", n.podCIDR())
	}
	return nil
}

type kubelet struct {
	client  kubernetes.Interface
	pods    corelisters.PodLister
	queue   workqueue.TypedRateLimitingInterface[string]
	nodes   map[string]nodeSpec
	ips     *allocator
	lingers sync.Map // pod UID -> struct{}: a removal already scheduled
}

func newKubelet(client kubernetes.Interface, cluster []nodeSpec) *kubelet {
	nodes := make(map[string]nodeSpec, len(cluster))
	for _, n := range cluster {
		nodes[n.name()] = n
	}
	return &kubelet{
		client: client,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "pods"}),
		nodes: nodes,
		ips:   newAllocator(),
	}
}

func (k *kubelet) run(ctx context.Context, workers int) {
	factory := informers.NewSharedInformerFactory(k.client, 0)
	informer := factory.Core().V1().Pods()
	k.pods = informer.Lister()
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			k.queue.Add(key)
		}
	}
	_, _ = informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: func(obj any) {
			if pod, ok := obj.(*corev1.Pod); ok {
				k.ips.release(pod.Status.PodIP)
			}
			enqueue(obj)
		},
	})
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.Informer().HasSynced) {
		return
	}
	// Addresses already handed out before a restart stay taken.
	if all, err := k.pods.List(labels.Everything()); err == nil {
		for _, pod := range all {
			k.ips.reserve(pod.Status.PodIP)
		}
	}
	klog.InfoS("fake-kubelet running", "nodes", len(k.nodes))
	for range workers {
		go wait.UntilWithContext(ctx, k.work, time.Second)
	}
	<-ctx.Done()
	k.queue.ShutDown()
}

func (k *kubelet) work(ctx context.Context) {
	for {
		key, quit := k.queue.Get()
		if quit {
			return
		}
		if err := k.sync(ctx, key); err != nil {
			klog.V(2).InfoS("retrying", "pod", key, "err", err)
			k.queue.AddRateLimited(key)
		} else {
			k.queue.Forget(key)
		}
		k.queue.Done(key)
	}
}

func (k *kubelet) sync(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := k.pods.Pods(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	node, ours := k.nodes[pod.Spec.NodeName]
	switch {
	case !ours:
		return nil
	case pod.DeletionTimestamp != nil:
		return k.terminate(ctx, pod)
	case pod.Status.Phase != corev1.PodRunning || pod.Status.PodIP == "":
		return k.start(ctx, pod, node)
	}
	return nil
}

// start writes the status a kubelet writes once every container runs and is ready.
func (k *kubelet) start(ctx context.Context, pod *corev1.Pod, node nodeSpec) error {
	ip := pod.Status.PodIP
	if ip == "" {
		var err error
		if ip, err = k.ips.next(node); err != nil {
			return err
		}
	}
	now := metav1.Now()
	updated := pod.DeepCopy()
	status := &updated.Status
	status.Phase = corev1.PodRunning
	status.HostIP = node.hostIP()
	status.HostIPs = []corev1.HostIP{{IP: node.hostIP()}}
	status.PodIP = ip
	status.PodIPs = []corev1.PodIP{{IP: ip}}
	if status.StartTime == nil {
		status.StartTime = &now
	}
	status.Conditions = nil
	for _, t := range []corev1.PodConditionType{
		corev1.PodScheduled, corev1.PodReadyToStartContainers, corev1.PodInitialized,
		corev1.ContainersReady, corev1.PodReady,
	} {
		status.Conditions = append(status.Conditions, corev1.PodCondition{
			Type: t, Status: corev1.ConditionTrue, LastTransitionTime: now,
		})
	}
	status.ContainerStatuses = nil
	for _, c := range pod.Spec.Containers {
		status.ContainerStatuses = append(status.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: "fake://" + c.Image,
			ContainerID: fmt.Sprintf("fake://%s/%s", pod.UID, c.Name),
			Ready:       true, Started: ptr(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		})
	}
	_, err := k.client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		k.ips.release(ip)
	}
	return err
}

// terminate removes a deleted Pod, at once or after its preStop sleep.
func (k *kubelet) terminate(ctx context.Context, pod *corev1.Pod) error {
	linger := preStopSleep(pod)
	if grace := pod.DeletionGracePeriodSeconds; grace != nil && time.Duration(*grace)*time.Second < linger {
		linger = time.Duration(*grace) * time.Second
	}
	if linger > 0 {
		if _, scheduled := k.lingers.LoadOrStore(pod.UID, struct{}{}); !scheduled {
			// The hook started when the deletion was asked for: deletionTimestamp minus the grace.
			started := pod.DeletionTimestamp.Add(-time.Duration(ptrOr(pod.DeletionGracePeriodSeconds, 0)) * time.Second)
			delay := time.Until(started.Add(linger))
			klog.InfoS("Pod terminating for its preStop sleep", "pod", klog.KObj(pod), "remaining", delay)
			key, _ := cache.MetaNamespaceKeyFunc(pod)
			time.AfterFunc(max(delay, 0), func() { k.remove(ctx, pod, key) })
		}
		return nil
	}
	return k.delete(ctx, pod)
}

func (k *kubelet) remove(ctx context.Context, pod *corev1.Pod, key string) {
	if err := k.delete(ctx, pod); err != nil {
		klog.InfoS("removing terminated Pod failed; retrying", "pod", key, "err", err)
		k.lingers.Delete(pod.UID)
		k.queue.AddRateLimited(key)
	}
}

func (k *kubelet) delete(ctx context.Context, pod *corev1.Pod) error {
	err := k.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: ptr(int64(0)),
		Preconditions:      &metav1.Preconditions{UID: &pod.UID},
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// preStopSleep is the longest preStop sleep of the Pod's containers.
func preStopSleep(pod *corev1.Pod) time.Duration {
	var longest time.Duration
	for _, c := range pod.Spec.Containers {
		if c.Lifecycle != nil && c.Lifecycle.PreStop != nil && c.Lifecycle.PreStop.Sleep != nil {
			longest = max(longest, time.Duration(c.Lifecycle.PreStop.Sleep.Seconds)*time.Second)
		}
	}
	return longest
}

func ptr[T any](v T) *T { return &v }

func ptrOr[T any](p *T, otherwise T) T {
	if p == nil {
		return otherwise
	}
	return *p
}
