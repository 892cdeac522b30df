/*
** What a WASI runtime does with the file operations SQLite and tempcrypt
** rely on, one fact a line ("name: value"), for test/wasi/runtimes.test.mjs
** to compare runtimes and for docs/wasi.md to quote.  Run it with "." and
** "/tmp" preopened (two empty host directories) and no other argument.
**
**   pwrite_past_eof   4096 bytes written at offset 8192 of an empty file:
**                     "ok" when the file is then 12288 bytes with the data
**                     at 8192 and zeros before it.  SQLite writes pages out
**                     of order when its cache spills; a runtime that
**                     appends instead corrupts the database.
**   unlinked_open     a file deleted while open can still be written, read
**                     and resized (SQLite deletes every temp file just
**                     after it opens it)
**   st_blksize, st_ino_distinct, st_ino_stable
**                     the block size fstat() reports; two files have
**                     different (st_dev, st_ino); one file opened twice has
**                     the same (SQLite's unix VFS tells files apart by it)
**   lock_dotfile_*    WASI preview1 has no file locks (wasi-libc has no
**                     F_SETLK or flock()); SQLite's unix-dotfile VFS locks
**                     by making the directory NAME.lock: the second mkdir()
**                     must fail with EEXIST
**   open_*            how paths resolve against the preopened "." and
**                     "/tmp": relative, "./", absolute, "..", a path that
**                     leaves through "..", and a directory not preopened
**   random            getentropy() gives bytes that differ between calls
**   clock_cputime     clock_gettime(CLOCK_THREAD_CPUTIME_ID): "ok" or the
**                     errno (a loop timed by it never ends where it fails)
**   stdin_tty         isatty(0) with stdin a pipe
**
** With arguments it checks a runner's command line instead:
**   runtime_probe exit N     exits with status N
**   runtime_probe trap       traps (unreachable)
**   runtime_probe env NAME   prints NAME=value, or "NAME unset"
*/
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *err_name(int e){
  switch( e ){
    case 0: return "ok";
    case EACCES: return "EACCES";
    case EBADF: return "EBADF";
    case EEXIST: return "EEXIST";
    case EINVAL: return "EINVAL";
    case EISDIR: return "EISDIR";
    case ENOENT: return "ENOENT";
    case ENOSYS: return "ENOSYS";
    case ENOTCAPABLE: return "ENOTCAPABLE";
    case ENOTDIR: return "ENOTDIR";
    case ENOTSUP: return "ENOTSUP";
    case EPERM: return "EPERM";
    default: return strerror(e);
  }
}

/* Creates (or opens) zPath read-write; prints "name: ok" or the errno. */
static void try_open(const char *zName, const char *zPath){
  int fd = open(zPath, O_RDWR|O_CREAT, 0644);
  printf("%s: %s\n", zName, fd<0 ? err_name(errno) : "ok");
  if( fd>=0 ) close(fd);
}

static void pwrite_past_eof(void){
  static char data[4096], back[4096];
  off_t size;
  int fd = open("probe_pwrite.bin", O_RDWR|O_CREAT|O_TRUNC, 0644);
  memset(data, 'B', sizeof data);
  memset(back, 'x', sizeof back);
  if( fd<0 || pwrite(fd, data, sizeof data, 8192)!=(ssize_t)sizeof data ){
    printf("pwrite_past_eof: %s\n", err_name(errno));
    if( fd>=0 ) close(fd);
    return;
  }
  size = lseek(fd, 0, SEEK_END);
  if( pread(fd, back, sizeof back, 8192)!=(ssize_t)sizeof back || size!=12288
   || memcmp(back, data, sizeof data)!=0
   || pread(fd, back, 1, 4096)!=1 || back[0]!=0 ){
    printf("pwrite_past_eof: wrong (file of %lld bytes, data %s at 8192)\n",
           (long long)size, memcmp(back, data, sizeof data) ? "not" : "found");
  }else{
    printf("pwrite_past_eof: ok\n");
  }
  close(fd);
  unlink("probe_pwrite.bin");
}

static void unlinked_open(void){
  char buf[6] = {0};
  struct stat st;
  int fd = open("probe_unlinked.bin", O_RDWR|O_CREAT|O_TRUNC, 0644);
  int ok = fd>=0 && unlink("probe_unlinked.bin")==0
        && access("probe_unlinked.bin", F_OK)!=0
        && pwrite(fd, "hello", 5, 1000)==5
        && pread(fd, buf, 5, 1000)==5 && memcmp(buf, "hello", 5)==0
        && ftruncate(fd, 100)==0 && fstat(fd, &st)==0 && st.st_size==100;
  printf("unlinked_open: %s\n", ok ? "ok" : err_name(errno));
  if( fd>=0 ) close(fd);
}

static void inodes(void){
  struct stat a, b, a2;
  int fa = open("probe_a.bin", O_RDWR|O_CREAT, 0644);
  int fb = open("probe_b.bin", O_RDWR|O_CREAT, 0644);
  int fa2 = open("probe_a.bin", O_RDWR);
  if( fa<0 || fb<0 || fa2<0 || fstat(fa, &a) || fstat(fb, &b) || fstat(fa2, &a2) ){
    printf("st_blksize: %s\n", err_name(errno));
  }else{
    printf("st_blksize: %ld\n", (long)a.st_blksize);
    printf("st_ino_distinct: %s\n", a.st_dev!=b.st_dev || a.st_ino!=b.st_ino ? "yes" : "no");
    printf("st_ino_stable: %s\n", a.st_dev==a2.st_dev && a.st_ino==a2.st_ino ? "yes" : "no");
  }
  if( fa>=0 ) close(fa);
  if( fb>=0 ) close(fb);
  if( fa2>=0 ) close(fa2);
  unlink("probe_a.bin");
  unlink("probe_b.bin");
}

static void locks(void){
  int fd = open("probe_lock.db", O_RDWR|O_CREAT, 0644), r;
  /* unix-dotfile: the lock is a directory NAME.lock, made with mkdir(). */
  r = mkdir("probe_lock.db.lock", 0777);
  printf("lock_dotfile_first: %s\n", r==0 ? "ok" : err_name(errno));
  r = mkdir("probe_lock.db.lock", 0777);
  printf("lock_dotfile_second: %s\n", r==0 ? "ok" : err_name(errno));
  rmdir("probe_lock.db.lock");
  if( fd>=0 ) close(fd);
  unlink("probe_lock.db");
}

static void paths(void){
  try_open("open_relative", "probe_p1");
  try_open("open_dot_slash", "./probe_p2");
  try_open("open_slash_tmp", "/tmp/probe_p3");
  try_open("open_slash_root", "/probe_p4");
  try_open("open_dotdot", "../probe_p5");
  try_open("open_tmp_dotdot", "/tmp/../probe_p6");
  try_open("open_not_preopened", "/var/tmp/probe_p7");
  unlink("probe_p1");
  unlink("probe_p2");
  unlink("/tmp/probe_p3");
  unlink("/probe_p4");
}

static void randomness(void){
  unsigned char a[32], b[32];
  int r = getentropy(a, sizeof a) || getentropy(b, sizeof b);
  printf("random: %s\n", r ? err_name(errno) : memcmp(a, b, sizeof a) ? "ok" : "repeats");
}

int main(int argc, char **argv){
  if( argc==3 && strcmp(argv[1], "exit")==0 ) return atoi(argv[2]);
  if( argc==2 && strcmp(argv[1], "trap")==0 ) __builtin_trap();
  if( argc==3 && strcmp(argv[1], "env")==0 ){
    const char *z = getenv(argv[2]);
    if( z ) printf("%s=%s\n", argv[2], z); else printf("%s unset\n", argv[2]);
    return 0;
  }
  pwrite_past_eof();
  unlinked_open();
  inodes();
  locks();
  paths();
  randomness();
  {
    struct timespec ts;
    int r = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    printf("clock_cputime: %s\n", r ? err_name(errno) : "ok");
  }
  printf("stdin_tty: %s\n", isatty(0) ? "yes" : "no");
  return 0;
}
