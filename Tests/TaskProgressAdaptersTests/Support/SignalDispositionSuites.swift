import Testing

/// The suites that change the process's signal dispositions, which every test of the process
/// shares: their tests run one at a time.
@Suite("Signal dispositions", .serialized)
enum SignalDispositionSuites {}
