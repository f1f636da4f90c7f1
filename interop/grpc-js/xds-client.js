#!/usr/bin/env node
// An unmodified proxyless gRPC client in Node, for routesync's interop test (GrpcJsXdsInteropTest):
// @grpc/grpc-js with the xds:/// resolver of @grpc/grpc-js-xds, configured by nothing but the
// bootstrap file that GRPC_XDS_BOOTSTRAP names, as any Node workload would be.
//
//   node xds-client.js <target> <method> [--every-ms 50] [--deadline-ms 1000] [--seconds 30] [--wait]
//
// It calls the unary <method> (a full name, "/package.Service/Method") on <target>
// (e.g. xds:///cart.shop:8080), one call at a time, a new one every --every-ms, each with a
// deadline of --deadline-ms, and prints one JSON line per call on stdout:
//
//   {"call":7,"ok":true,"reply":"backend-a","ms":3}
//   {"call":8,"ok":false,"code":14,"status":"UNAVAILABLE","details":"...","ms":1}
//
// With --wait it loads grpc-js (a few seconds: grpc-js-xds parses Envoy's protos), prints
// {"loaded":true}, and waits for a line "go" on stdin before it reads the bootstrap and starts, so
// a test can load it while the agent starts. The first line after that is {"ready":true,...}, once
// the client exists. Messages are raw bytes both ways
// (identity serializers, no .proto): the request is empty, and the reply is printed as UTF-8.
// It stops after --seconds, or as soon as its stdin ends (so it never outlives the test that
// started it), and exits 0; a bad command line exits 2.
'use strict';

const grpc = require('@grpc/grpc-js');
const xds = require('@grpc/grpc-js-xds');

function usage(message) {
  process.stderr.write(`xds-client: ${message}\n`);
  process.stderr.write(
    'usage: xds-client.js <target> <method> [--every-ms N] [--deadline-ms N] [--seconds N] [--wait]\n'
  );
  process.exit(2);
}

function parse(argv) {
  const options = { everyMs: 50, deadlineMs: 1000, seconds: 30, wait: false };
  const positional = [];
  const flags = { '--every-ms': 'everyMs', '--deadline-ms': 'deadlineMs', '--seconds': 'seconds' };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--wait') {
      options.wait = true;
      continue;
    }
    const key = flags[argv[i]];
    if (key === undefined) {
      positional.push(argv[i]);
      continue;
    }
    const value = Number(argv[++i]);
    if (!Number.isInteger(value) || value <= 0) {
      usage(`${argv[i - 1]} needs a positive integer`);
    }
    options[key] = value;
  }
  if (positional.length !== 2) {
    usage('a target and a method are required');
  }
  [options.target, options.method] = positional;
  if (!options.method.startsWith('/')) {
    usage('the method is a full name: /package.Service/Method');
  }
  return options;
}

function print(line) {
  process.stdout.write(JSON.stringify(line) + '\n');
}

function main() {
  const options = parse(process.argv.slice(2));
  if (!process.env.GRPC_XDS_BOOTSTRAP) {
    usage('GRPC_XDS_BOOTSTRAP must name the bootstrap file');
  }
  xds.register();
  if (!options.wait) {
    run(options);
    return;
  }
  print({ loaded: true });
  // Nobody said "go" in time: the run would have been over by now.
  const giveUp = setTimeout(() => process.exit(0), options.seconds * 1000);
  let buffered = '';
  const onData = (chunk) => {
    buffered += chunk;
    if (buffered.split('\n').some((line) => line.trim() === 'go')) {
      process.stdin.off('data', onData);
      process.stdin.off('end', onEnd);
      clearTimeout(giveUp);
      run(options);
    }
  };
  // The parent went away before "go": nothing to do.
  const onEnd = () => process.exit(0);
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', onData);
  process.stdin.on('end', onEnd);
}

function run(options) {
  const client = new grpc.Client(options.target, grpc.credentials.createInsecure());
  const identity = (bytes) => bytes;
  const endAt = Date.now() + options.seconds * 1000;
  let stopped = false;
  let call = 0;

  function stop() {
    stopped = true;
  }
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();

  function next() {
    if (stopped || Date.now() >= endAt) {
      client.close();
      process.exit(0);
    }
    const n = ++call;
    const started = Date.now();
    client.makeUnaryRequest(
      options.method,
      identity,
      identity,
      Buffer.alloc(0),
      new grpc.Metadata(),
      { deadline: new Date(started + options.deadlineMs) },
      (error, reply) => {
        const ms = Date.now() - started;
        if (error) {
          print({
            call: n,
            ok: false,
            code: error.code,
            status: grpc.status[error.code],
            details: error.details,
            ms,
          });
        } else {
          print({ call: n, ok: true, reply: reply.toString('utf8'), ms });
        }
        setTimeout(next, Math.max(0, options.everyMs - ms));
      }
    );
  }

  print({ ready: true, target: options.target, grpcJs: grpcJsVersion() });
  next();
}

function grpcJsVersion() {
  return require('@grpc/grpc-js/package.json').version;
}

main();
