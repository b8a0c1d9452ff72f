import Foundation

// progress-bench: what progress reporting costs, TaskProgress side by side with the seed's
// AsyncStream pipeline, Foundation.Progress and a raw atomic store. See Benchmarks/README.md,
// or run with --help.

let invocation: Invocation
do {
  invocation = try Invocation.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
  printError("progress-bench: \(error)")
  exit(64)
}

switch invocation {
case .help:
  print(Invocation.usage)
case .child(let options):
  let sample = await ChildMeasurement.run(options)
  do {
    print(try ChildMeasurement.jsonLine(sample))
  } catch {
    printError("progress-bench: cannot encode the result: \(error)")
    exit(70)
  }
case .benchmark(let options):
  exit(Benchmark(options: options).run())
}
