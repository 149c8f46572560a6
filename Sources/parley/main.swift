import ParleyCLI
import Foundation

exit(await ParleyCommand.main(CommandLine.arguments.dropFirst().map { $0 }))
