// ProGuard's own ReTrace (Debian proguard-cli) as an oracle for tests/corpus/mapping_corpus_test.ts:
// one JVM retraces many (mapping, trace) pairs, so the test pays one start-up, not one per mapping.
// Usage: java -cp <retrace.jar>:<proguard.jar> RetraceOracle.java <jobs file>
// The jobs file has one job per line: <mapping path>\t<trace path>\t<output path>.
import java.io.File;
import java.io.FileReader;
import java.io.FileWriter;
import java.io.LineNumberReader;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import proguard.retrace.ReTrace;

public class RetraceOracle {
  public static void main(String[] args) throws Exception {
    for (String job : Files.readAllLines(Path.of(args[0]))) {
      if (job.isBlank()) continue;
      String[] f = job.split("\t");
      try (LineNumberReader in = new LineNumberReader(new FileReader(f[1]));
          PrintWriter out = new PrintWriter(new FileWriter(f[2]))) {
        // Non-verbose: frames as `at class.method(File:line)`, the shape keynobi prints.
        new ReTrace(ReTrace.STACK_TRACE_EXPRESSION, false, new File(f[0])).retrace(in, out);
      } catch (Exception e) {
        try (PrintWriter out = new PrintWriter(new FileWriter(f[2]))) {
          out.println("ORACLE-ERROR " + e);
        }
      }
    }
  }
}
