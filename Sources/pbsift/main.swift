import SiftCLI
import Foundation
// Arguments as bytes: a path that is not UTF-8 must open exactly that file.
exit(PBSift.main(PBSift.byteArguments()))
