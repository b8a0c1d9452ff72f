// swift-tools-version: 6.2
import PackageDescription

/// Settings shared by every target: Swift 6 with the upcoming features that keep the API honest.
let swiftSettings: [SwiftSetting] = [
  // SE-0335: existential types are spelled `any P`.
  // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0335-existential-any.md
  .enableUpcomingFeature("ExistentialAny"),
  // SE-0444: a member is visible only where its module is imported.
  // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0444-member-import-visibility.md
  .enableUpcomingFeature("MemberImportVisibility"),
  // SE-0409: imports are internal unless marked `public`.
  // https://github.com/swiftlang/swift-evolution/blob/main/proposals/0409-access-level-on-imports.md
  .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
  name: "swift-task-progress",
  // Synchronization's `Atomic` and `Mutex` set the floor: macOS 15, iOS 18 and their peers.
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "TaskProgress", targets: ["TaskProgress"]),
    .library(name: "TaskProgressAdapters", targets: ["TaskProgressAdapters"]),
    .library(name: "TaskProgressFoundation", targets: ["TaskProgressFoundation"]),
  ],
  targets: [
    // The core: state, runner, reporter, animation, clocks and the test recorder. It imports only
    // the standard library, Synchronization, Observation and Dispatch.
    .target(
      name: "TaskProgress",
      swiftSettings: swiftSettings
    ),
    // The renderers that draw on a terminal or append to a file; they use the C library.
    .target(
      name: "TaskProgressAdapters",
      dependencies: ["TaskProgress"],
      swiftSettings: swiftSettings
    ),
    // The bridge to Foundation's `Progress`: follow one in a reporter, publish a runner as one.
    // The only target that imports Foundation.
    .target(
      name: "TaskProgressFoundation",
      dependencies: ["TaskProgress"],
      swiftSettings: swiftSettings
    ),
    // What the example programs share: their command-line parsing and exit statuses.
    .target(
      name: "ExampleSupport",
      dependencies: ["TaskProgress", "TaskProgressAdapters"],
      path: "Examples/Support",
      swiftSettings: swiftSettings
    ),
    .executableTarget(
      name: "heavy-task",
      dependencies: ["TaskProgress", "TaskProgressAdapters", "ExampleSupport"],
      path: "Examples/heavy-task",
      swiftSettings: swiftSettings
    ),
    // A queue of simulated downloads, K at a time, drawn by TerminalGroupRenderer.
    .executableTarget(
      name: "downloads",
      dependencies: ["TaskProgress", "TaskProgressAdapters", "ExampleSupport"],
      path: "Examples/downloads",
      swiftSettings: swiftSettings
    ),
    // The SwiftUI views the examples mirror, on TaskProgress: "Perform a Heavy Task" and the
    // downloads queue; compiles to nothing where SwiftUI does not exist.
    .target(
      name: "SwiftUIExample",
      dependencies: ["TaskProgress"],
      path: "Examples/SwiftUI",
      swiftSettings: swiftSettings
    ),
    // Set-ups shared by the test targets: a runner on a manual clock, latches, scripted runs, a
    // held run and a recording renderer.
    .target(
      name: "TaskProgressTestSupport",
      dependencies: ["TaskProgress"],
      path: "Tests/TaskProgressTestSupport",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "TaskProgressTests",
      dependencies: ["TaskProgress", "TaskProgressTestSupport"],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "TaskProgressAdaptersTests",
      dependencies: ["TaskProgress", "TaskProgressAdapters", "TaskProgressTestSupport"],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "TaskProgressFoundationTests",
      dependencies: ["TaskProgress", "TaskProgressFoundation", "TaskProgressTestSupport"],
      swiftSettings: swiftSettings
    ),
    // A bar drawn with the default signal dispositions, or with the signals handed to a
    // TerminalConsole, for HeavyTaskTests to interrupt.
    .executableTarget(
      name: "terminal-probe",
      dependencies: ["TaskProgress", "TaskProgressAdapters"],
      path: "Tests/TerminalProbe",
      swiftSettings: swiftSettings
    ),
    // The example programs run as a user runs them: on a pseudo-terminal, or piped.
    .target(
      name: "ExampleTestSupport",
      path: "Tests/ExampleTestSupport",
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "HeavyTaskTests",
      dependencies: ["heavy-task", "terminal-probe", "ExampleSupport", "ExampleTestSupport"],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "DownloadsTests",
      dependencies: [
        "downloads", "TaskProgress", "ExampleSupport", "ExampleTestSupport",
        "TaskProgressTestSupport",
      ],
      swiftSettings: swiftSettings
    ),
    // The SwiftUI example where SwiftUI does not exist: Example is a symbolic link to
    // Examples/SwiftUI, whose files compile here against a stand-in for the SwiftUI names they
    // use (StandIn), so that a change of TaskProgress that breaks them fails on Linux too; the
    // tests drive the views through that stand-in. Where SwiftUI exists, they compile against it.
    .testTarget(
      name: "SwiftUIExampleTests",
      dependencies: ["TaskProgress"],
      swiftSettings: swiftSettings + [.define("SWIFTUI_STAND_IN")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
