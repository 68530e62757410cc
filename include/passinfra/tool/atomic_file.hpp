// passinfra/tool/atomic_file.hpp — write a file whole or not at all (SPEC §12.4).
//
// write_file_atomically(path, text)   text into a new temporary file in the same directory
//                                     (<path>.tmp.XXXXXX, mkstemp), flushed, closed, then
//                                     rename()d over path; throws passinfra::Error
//                                     "cannot write '<path>': <strerror>"
//
// On any failure before the rename the temporary file is removed and `path`
// is left exactly as it was (absent stays absent). A reader never sees half
// a file: rename within one directory is atomic on POSIX. The new file gets
// the permissions a plain open(O_CREAT, 0666) would (the umask applied), not
// mkstemp's 0600, and keeps none of the old file's.
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

}  // namespace detail

// write_file_atomically(path, text): see the header comment.
inline void write_file_atomically(const std::string& path, std::string_view text) {
  if (path.empty()) detail::throw_write_error(path, ENOENT);
  std::string temp = path + ".tmp.XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) detail::throw_write_error(path, errno);
  const auto fail = [&](int error) {
    ::close(fd);
    ::unlink(temp.c_str());
    detail::throw_write_error(path, error);
  };
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(errno);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, 0666 & ~detail::process_umask()) != 0) fail(errno);
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) fail(errno);
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    detail::throw_write_error(path, error);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    detail::throw_write_error(path, error);
  }
}

}  // namespace passinfra
