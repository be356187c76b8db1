import SiftCLI
import Foundation
exit(PBSift.main(CommandLine.arguments))
