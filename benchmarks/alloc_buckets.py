#!/usr/bin/env python3
"""Buckets an async-profiler allocation profile (collapsed stacks with `total`: bytes per stack),
such as ScaleRun --profile-relist writes, by who allocated: fabric8/Jackson decode, fabric8's HTTP
body buffering, Netty/Vert.x I/O, our code; then the top allocated types and inclusive frames.

    python3 benchmarks/alloc_buckets.py relist-alloc-4000.collapsed
"""
import collections
import sys
tot=0; by=collections.Counter(); leaf=collections.Counter(); frames=collections.Counter()
for line in open(sys.argv[1]):
    stack,_,n=line.rstrip().rpartition(' ')
    n=int(n); tot+=n
    fr=stack.split(';')
    leaf[fr[-1]]+=n
    s=stack
    if 'dev/routesync/kube/ObjectStore' in s or 'dev/routesync/kube/translate' in s: k='ours: store + translation'
    elif 'dev/routesync' in s and 'fabric8' not in s: k='ours other'
    elif 'KubernetesDeserializer' in s or 'tools/jackson' in s: k='decode (Jackson/fabric8 deserializers)'
    elif 'io/fabric8/kubernetes/client/http' in s or 'io/fabric8/kubernetes/client/vertx' in s: k='fabric8 HTTP client (body buffering)'
    elif 'io/fabric8' in s: k='fabric8 other'
    elif 'io/netty' in s or 'io/vertx' in s: k='netty/vertx I/O'
    else: k='other (JVM, GC, ...)'
    by[k]+=n
    seen=set()
    for f in fr:
        if f not in seen: frames[f]+=n; seen.add(f)
print('sampled allocation: %.1f MiB' % (tot/2**20))
for k,v in by.most_common(): print(f'{k:42s} {v/2**20:8.1f} MiB {100*v/tot:5.1f}%')
print('--- top allocated types (leaf frames)')
for k,v in leaf.most_common(15): print(f'{v/2**20:8.1f} MiB {100*v/tot:5.1f}%  {k}')
print('--- top inclusive frames')
for k,v in frames.most_common(60):
    if any(x in k for x in ('fabric8','jackson','routesync','vertx/core/http','Buffer')): print(f'{v/2**20:8.1f} MiB {100*v/tot:5.1f}%  {k}')
