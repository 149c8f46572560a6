import Foundation

// One benchmark executable, one subcommand per area, one line per figure.
print("parley-bench: no areas yet")
