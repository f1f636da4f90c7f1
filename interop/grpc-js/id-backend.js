#!/usr/bin/env node
// A pod's gRPC server for routesync's end-to-end tests (TerminatingIT), run inside a network
// namespace the test made, where each pod's IP is an address of the loopback interface:
//
//   node id-backend.js [--seconds 120] ADDRESS:PORT...
//
// It listens on every ADDRESS:PORT and answers the unary /routesync.interop.Backend/Who (the
// method IdBackend serves in the unit tier) with the ADDRESS the call arrived on, as UTF-8 (raw
// bytes both ways, no .proto), so an xDS client's reply names the pod it reached. It prints
// {"listening":"ADDRESS:PORT"} to stderr for each, and exits after --seconds at the latest.
'use strict';

const grpc = require('@grpc/grpc-js');

const identity = (bytes) => bytes;

function main() {
  const argv = process.argv.slice(2);
  let seconds = 120;
  const addresses = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--seconds') {
      seconds = Number(argv[++i]);
    } else {
      addresses.push(argv[i]);
    }
  }
  if (addresses.length === 0 || !Number.isInteger(seconds) || seconds <= 0) {
    process.stderr.write('usage: id-backend.js [--seconds N] ADDRESS:PORT...\n');
    process.exit(2);
  }
  // Bounded whatever happens to the test: never outlives its run time.
  setTimeout(() => process.exit(0), seconds * 1000).unref();
  for (const address of addresses) {
    serve(address);
  }
}

function serve(address) {
  const server = new grpc.Server();
  const ip = address.slice(0, address.lastIndexOf(':'));
  server.addService(
    {
      Who: {
        path: '/routesync.interop.Backend/Who',
        requestStream: false,
        responseStream: false,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      },
    },
    { Who: (call, callback) => callback(null, Buffer.from(ip, 'utf8')) }
  );
  server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error) => {
    if (error) {
      process.stderr.write(JSON.stringify({ address, error: error.message }) + '\n');
      process.exit(1);
    }
    process.stderr.write(JSON.stringify({ listening: address }) + '\n');
  });
}

main();
