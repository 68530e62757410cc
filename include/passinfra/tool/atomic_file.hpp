// passinfra/tool/atomic_file.hpp — write a file whole or not at all (SPEC §12.4).
//
// write_file_atomically(path, text)   text into a new temporary file in the same directory
//                                     (<path>.tmp.XXXXXX, mkstemp), written, closed, then
//                                     rename()d over path; throws passinfra::Error
//                                     "cannot write '<path>': <strerror>"
//
// On any failure before the rename the temporary file is removed and `path`
// is left exactly as it was (absent stays absent). A reader never sees half
// a file: rename within one directory is atomic on POSIX. No fsync: the
// promise is all-or-nothing for readers, not durability across a power cut
// (as LLVM's and MLIR's tools; an fsync costs milliseconds on a disk). The new file gets
// the permissions a plain open(O_CREAT, 0666) would (the umask applied), not
// mkstemp's 0600, and keeps none of the old file's.
//
// Not every path is a file to replace: a path that exists and is not a regular
// file (/dev/null, /dev/stdout, a FIFO) is opened and written in place --
// renaming over it would replace the device node itself (as root: /dev/null
// becomes a regular file); a symbolic link to a regular file has the file it
// names replaced, the link kept; a directory is an error (EISDIR).
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <stdlib.h>  // NOLINT(modernize-deprecated-headers): mkstemp is POSIX, not in <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

#include "passinfra/core/error.hpp"

namespace passinfra {

namespace detail {

[[noreturn]] inline void throw_write_error(std::string_view path, int error) {
  throw Error("cannot write '" + std::string(path) + "': " + std::strerror(error));
}

// The process's umask, read without changing it (umask(2) can only set it,
// and setting it twice races with other threads creating files): Linux's
// /proc/self/status "Umask:" line; 022 where that is not available.
inline mode_t process_umask() {
  const int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 022;
  char buffer[4096];
  const ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
  ::close(fd);
  if (n <= 0) return 022;
  buffer[n] = '\0';
  const char* at = std::strstr(buffer, "Umask:");
  if (at == nullptr) return 022;
  return static_cast<mode_t>(std::strtoul(at + 6, nullptr, 8) & 0777);
}

// Writes all of text to fd; false with errno set on failure.
inline bool write_all(int fd, std::string_view text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    written += static_cast<std::size_t>(n);
  }
  return true;
}

// A path that exists and is not a regular file (/dev/null, /dev/stdout, a FIFO,
// a terminal) is written in place: renaming a file over it would replace the
// device node itself. Nothing can be atomic there.
inline void write_in_place(const std::string& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw_write_error(path, errno);
  if (!write_all(fd, text)) {
    const int error = errno;
    ::close(fd);
    throw_write_error(path, error);
  }
  if (::close(fd) != 0) throw_write_error(path, errno);
}

}  // namespace detail

// write_file_atomically(path, text): see the header comment.
inline void write_file_atomically(const std::string& path_given, std::string_view text) {
  if (path_given.empty()) detail::throw_write_error(path_given, ENOENT);
  std::string path = path_given;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) detail::throw_write_error(path_given, EISDIR);
    if (!S_ISREG(st.st_mode)) {
      detail::write_in_place(path, text);
      return;
    }
    // A symbolic link to a regular file: replace the file it names, keep the link.
    struct stat lst {};
    if (::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
      if (char* real = ::realpath(path.c_str(), nullptr)) {
        path = real;
        std::free(real);  // NOLINT(cppcoreguidelines-no-malloc): realpath's buffer
      }
    }
  }
  const auto throw_error = [&](int error) { detail::throw_write_error(path_given, error); };
  std::string temp = path + ".tmp.XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) throw_error(errno);
  const auto fail = [&](int error) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw_error(error);
  };
  if (!detail::write_all(fd, text)) fail(errno);
  if (::fchmod(fd, 0666 & ~detail::process_umask()) != 0) fail(errno);
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw_error(error);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw_error(error);
  }
}

}  // namespace passinfra
