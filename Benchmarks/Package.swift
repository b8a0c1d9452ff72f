// swift-tools-version: 6.2
import PackageDescription

/// The same language settings as the library's own targets.
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
  name: "progress-bench",
  platforms: [.macOS(.v15)],
  dependencies: [
    // A path dependency's identity is the last component of its path, so the name of the folder
    // the repository was cloned into. The name given here is what targets refer to instead, and
    // it holds whatever that folder is called.
    .package(name: "swift-task-progress", path: "../")
  ],
  targets: [
    .executableTarget(
      name: "progress-bench",
      dependencies: [
        .product(name: "TaskProgress", package: "swift-task-progress"),
        .product(name: "TaskProgressAdapters", package: "swift-task-progress"),
        .product(name: "TaskProgressFoundation", package: "swift-task-progress"),
      ],
      path: "progress-bench",
      swiftSettings: swiftSettings
    )
  ],
  swiftLanguageModes: [.v6]
)
