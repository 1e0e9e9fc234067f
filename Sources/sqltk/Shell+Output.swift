import Foundation
import SQLiteToolkit

/// Where `.output FILE` or `.once FILE` sends standard output: the file (or the pipe of `|COMMAND`) takes the place
/// of descriptor 1, so everything the shell writes (`print`, the dump's buffer, `.shell` commands) follows it
/// without each writer knowing.
struct OutputRedirection {
    /// A copy of the standard output the shell started with, put back by ``Shell/endRedirection()``.
    var savedDescriptor: Int32
    /// The pipe to `COMMAND` for `|COMMAND`, closed (and waited for) at the end.
    var pipe: UnsafeMutablePointer<FILE>?
    /// `.once`: ends after the next SQL input or dot-command.
    var isOnce: Bool
    /// The file or `|COMMAND`, as `.show` names it.
    var target: String
    /// Whether the next input is the one `.once` is for (the `.once` itself does not count).
    var isArmed = false
}

extension Shell {
    /// `.output [FILE|'|COMMAND']`, `.once FILE`: sends standard output to FILE (created or truncated) or to the
    /// standard input of COMMAND; `.output` alone goes back to standard output.
    func redirectOutput(_ arguments: [String], isOnce: Bool) throws {
        let command = isOnce ? ".once" : ".output"
        if let option = arguments.first(where: { $0.hasPrefix("-") }) {
            throw Failure("\(command): \(option) is not supported (it opens a program to view the output)")
        }
        guard arguments.count <= 1, !(isOnce && arguments.isEmpty) else {
            throw Failure("usage: \(command) \(isOnce ? "FILE" : "[FILE]")")
        }
        endRedirection()
        guard let target = arguments.first, target != "stdout" || isOnce else { return }
        flushOutput()
        OutputBuffer.standardOutput.flush()
        var pipe: UnsafeMutablePointer<FILE>?
        let descriptor: Int32
        if target.hasPrefix("|") {
            guard let opened = RawText.withCString(String(target.dropFirst()), { popen($0, "w") }) else {
                throw Failure("\(command): cannot start \(target.dropFirst())")
            }
            pipe = opened
            descriptor = fileno(opened)
        } else {
            descriptor = RawText.withCString(target) { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
            guard descriptor >= 0 else {
                throw Failure("\(command): cannot write \(target): \(String(cString: strerror(errno)))")
            }
        }
        let saved = dup(STDOUT_FILENO)
        defer { if pipe == nil { Foundation.close(descriptor) } }
        guard saved >= 0, dup2(descriptor, STDOUT_FILENO) >= 0 else {
            if saved >= 0 { Foundation.close(saved) }
            if let pipe { pclose(pipe) }
            throw Failure("\(command): cannot redirect standard output: \(String(cString: strerror(errno)))")
        }
        redirection = OutputRedirection(savedDescriptor: saved, pipe: pipe, isOnce: isOnce, target: target)
    }

    /// Puts standard output back where it was before `.output` or `.once`.
    func endRedirection() {
        guard let current = redirection else { return }
        flushOutput()
        OutputBuffer.standardOutput.flush()
        dup2(current.savedDescriptor, STDOUT_FILENO)
        Foundation.close(current.savedDescriptor)
        if let pipe = current.pipe { pclose(pipe) }
        redirection = nil
    }

    /// Runs `body` with standard output back where the shell started it, under `.output` or `.once` too: where
    /// sqlite3 runs a `.shell` command, whose output is not the shell's own and does not go into the file.
    func withOriginalStandardOutput<T>(_ body: () throws -> T) throws -> T {
        flushOutput()
        OutputBuffer.standardOutput.flush()
        guard let current = redirection else { return try body() }
        let redirected = dup(STDOUT_FILENO)
        guard redirected >= 0, dup2(current.savedDescriptor, STDOUT_FILENO) >= 0 else {
            let reason = String(cString: strerror(errno))
            if redirected >= 0 { Foundation.close(redirected) }
            throw Failure("cannot give the command the standard output: \(reason); it did not run")
        }
        defer {
            dup2(redirected, STDOUT_FILENO)
            Foundation.close(redirected)
        }
        return try body()
    }

    /// Called after each SQL input and dot-command: ends a `.once` redirection once its input ran.
    func endOnce() {
        guard var current = redirection, current.isOnce else { return }
        if current.isArmed {
            endRedirection()
        } else {
            current.isArmed = true
            redirection = current
        }
    }
}
