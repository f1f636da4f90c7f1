// Command k8s-bundle is one binary for the whole test control plane: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, kubectl and a stand-in kubelet (fake-kubelet). One binary
// links once: linking each Kubernetes component on its own costs about as much again per component
// on a two-core machine, for code that is almost all shared.
//
// The component is chosen by the name the binary is called by (a symlink, as busybox does) or, when
// that name is the bundle's own, by the first argument: `k8s-bundle kubectl get pods`.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	_ "time/tzdata" // CronJob time zones, as the upstream binaries import it

	"go.etcd.io/etcd/server/v3/etcdmain"
	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"

	"routesync.dev/control-plane/internal/kubelet"
)

// Each entry runs one component with os.Args as that component would see them and returns its exit
// code.
var components = map[string]func() int{
	"etcd": func() int {
		etcdmain.Main(os.Args) // exits the process itself
		return 0
	},
	"kube-apiserver":          func() int { return cli.Run(apiserver.NewAPIServerCommand()) },
	"kube-controller-manager": func() int { return cli.Run(controllermanager.NewControllerManagerCommand()) },
	"kube-scheduler":          func() int { return cli.Run(scheduler.NewSchedulerCommand()) },
	"kubectl": func() int {
		logs.GlogSetter(kubectlcmd.GetLogVerbosity(os.Args)) // nolint:errcheck
		if err := cli.RunNoErrOutput(kubectlcmd.NewDefaultKubectlCommand()); err != nil {
			kubectlutil.CheckErr(err)
		}
		return 0
	},
	"fake-kubelet": func() int { return kubelet.Main(os.Args[1:]) },
}

func main() {
	name := filepath.Base(os.Args[0])
	if _, ok := components[name]; !ok && len(os.Args) > 1 {
		// Called by its own name: the component is the first argument, and it sees the rest.
		name = os.Args[1]
		os.Args = append([]string{name}, os.Args[2:]...)
	}
	run, ok := components[name]
	if !ok {
		names := make([]string, 0, len(components))
		for n := range components {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "usage: k8s-bundle COMPONENT [ARGS...], or a link named after one; components: %v\n", names)
		os.Exit(2)
	}
	os.Exit(run())
}
