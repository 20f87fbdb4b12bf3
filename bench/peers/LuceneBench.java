// Lucene as a peer of bench/compare.py: index, warm up, then time single queries in this JVM.
//
// Run by bench/peers/lucene.py (which compiles it against the jars it finds and reads its output):
//
//   java -cp JARS:CLASSES LuceneBench --documents docs.tsv --timed timed.tsv --warm warm.tsv
//        --warmup 1000 --top 10,100,1000 --k1 1.5 --b 0.75
//
// Input files hold one "id<TAB>text" line each (tabs, carriage returns and line feeds of the text
// already turned into spaces, which Lucene's StandardTokenizer treats alike). Standard output is one
// JSON object: documents, read_seconds, index_seconds, seconds (each timed query's wall time per
// depth, in order), hits (the deepest pass's [id, score] lists), versions.
//
// What is measured, and how it matches compare.py's other peers:
// * index: the texts already in memory -> an in-RAM index (ByteBuffersDirectory, like tantivy's),
//   English analysis (Lucene's EnglishAnalyzer: StandardTokenizer, possessives, lower case, its
//   English stop words, Porter stemming: the chain of Anserini's DefaultEnglishAnalyzer with its
//   default porter stemmer), BM25Similarity(k1, b), documents and term frequencies only (BM25 needs no
//   positions), one indexing thread (SerialMergeScheduler, documents added from this thread), commit,
//   forceMerge(1), and a table docid -> stored id read once after the merge (the table counted in the
//   index time, as tantivy's is).
// * a query: its text analysed with the same analyzer, Anserini's bag-of-words query (a SHOULD
//   TermQuery per distinct term, boosted by its count in the query), IndexSearcher without executor
//   (single thread), TopScoreDocCollector with totalHitsThreshold = k so that Lucene may skip
//   non-competitive documents as soon as k are collected (the default threshold of
//   IndexSearcher.search(Query, int) is 1,000: it counts up to 1,000 hits first), then ids and scores.
//   Each query's time runs from its text to the list of (id, score).
// * warm-up: `--warmup` searches before anything is timed, the warm queries in order, cycling, k
//   cycling over `--top` (compare.py's warm_up); then further passes over the warm queries until the
//   JIT compiler is idle (two passes in a row without compilation time, at most 30,000 searches), and
//   a System.gc(), so that neither the JVM's start-up, its JIT compilation nor the indexing garbage is
//   in a timed query.

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SerialMergeScheduler;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopScoreDocCollector;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.Version;

public final class LuceneBench {
  private static final String FIELD = "contents";
  private static final int MAX_SETTLE_SEARCHES = 30_000;

  /** One hit: the stored id and Lucene's score. */
  private record Hit(String id, float score) {}

  private final Analyzer analyzer = new EnglishAnalyzer();
  private IndexSearcher searcher;
  private String[] idOf;

  public static void main(String[] arguments) throws IOException {
    Map<String, String> options = new TreeMap<>();
    for (int i = 0; i + 1 < arguments.length; i += 2) {
      if (!arguments[i].startsWith("--")) throw new IllegalArgumentException("expected --option value: " + arguments[i]);
      options.put(arguments[i].substring(2), arguments[i + 1]);
    }
    new LuceneBench().run(options);
  }

  private void run(Map<String, String> options) throws IOException {
    long started = System.nanoTime();
    List<String[]> documents = readTsv(required(options, "documents"));
    double readSeconds = seconds(started);
    List<String[]> timed = readTsv(required(options, "timed"));
    List<String[]> warm = readTsv(options.getOrDefault("warm", required(options, "timed")));
    int warmup = Integer.parseInt(options.getOrDefault("warmup", "1000"));
    String[] topText = options.getOrDefault("top", "10,100,1000").split(",");
    int[] top = new int[topText.length];
    for (int i = 0; i < top.length; i++) top[i] = Integer.parseInt(topText[i]);
    BM25Similarity similarity = new BM25Similarity(
        Float.parseFloat(options.getOrDefault("k1", "1.5")), Float.parseFloat(options.getOrDefault("b", "0.75")));

    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    started = System.nanoTime();
    long cpuStarted = threads.getCurrentThreadCpuTime();
    build(documents, similarity);
    double indexSeconds = seconds(started); // a fresh JVM's first build, as every peer's is measured
    double indexCpuSeconds = (threads.getCurrentThreadCpuTime() - cpuStarted) / 1e9; // this thread's only
    started = System.nanoTime();
    build(documents, similarity); // the same build again, its code compiled: reported beside, not instead
    double indexAgainSeconds = seconds(started);

    int warmed = 0;
    while (warmed < warmup && !warm.isEmpty()) {
      for (String[] query : warm) {
        if (warmed >= warmup) break;
        rank(query[1], top[warmed % top.length]);
        warmed++;
      }
    }
    // Then more passes over the warm queries (k cycling) until the JIT is idle: two passes in a row
    // during which the JVM's total compilation time did not grow, at most MAX_SETTLE_SEARCHES searches.
    // Without this, 1,000 searches leave much of the search path interpreted or in profiling code
    // (C2 compiles a method after about 10,000 invocations), and q/s would measure the JIT.
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    boolean canTell = jit != null && jit.isCompilationTimeMonitoringSupported();
    int settle = 0;
    for (int quiet = 0; canTell && quiet < 2 && settle < MAX_SETTLE_SEARCHES && !warm.isEmpty(); ) {
      long before = jit.getTotalCompilationTime();
      for (String[] query : warm) {
        rank(query[1], top[(warmed + settle) % top.length]);
        settle++;
      }
      quiet = jit.getTotalCompilationTime() == before ? quiet + 1 : 0;
    }
    System.gc(); // the indexing and warm-up garbage collected now, not during a timed query

    StringBuilder out = new StringBuilder();
    out.append("{\"documents\": ").append(idOf.length)
        .append(", \"read_seconds\": ").append(readSeconds)
        .append(", \"index_seconds\": ").append(indexSeconds)
        .append(", \"index_cpu_seconds\": ").append(indexCpuSeconds)
        .append(", \"index_again_seconds\": ").append(indexAgainSeconds)
        .append(", \"warmup_searches\": ").append(warmed)
        .append(", \"jit_settle_searches\": ").append(settle)
        .append(", \"jit_settled\": ").append(canTell && settle < MAX_SETTLE_SEARCHES)
        .append(", \"versions\": {\"lucene\": \"").append(Version.LATEST)
        .append("\", \"java\": \"").append(System.getProperty("java.version")).append("\"}")
        .append(", \"seconds\": {");
    List<List<Hit>> deepest = null;
    for (int d = 0; d < top.length; d++) {
      List<List<Hit>> answers = new ArrayList<>(timed.size());
      double[] each = new double[timed.size()];
      for (int q = 0; q < timed.size(); q++) {
        long queryStarted = System.nanoTime();
        answers.add(rank(timed.get(q)[1], top[d]));
        each[q] = seconds(queryStarted);
      }
      out.append(d == 0 ? "" : ", ").append("\"top").append(top[d]).append("\": [");
      for (int q = 0; q < each.length; q++) out.append(q == 0 ? "" : ", ").append(each[q]);
      out.append("]");
      deepest = answers;
    }
    out.append("}, \"hits\": {");
    for (int q = 0; q < timed.size(); q++) {
      out.append(q == 0 ? "" : ", ").append(quoted(timed.get(q)[0])).append(": [");
      List<Hit> hits = deepest.get(q);
      for (int h = 0; h < hits.size(); h++) {
        out.append(h == 0 ? "" : ", ").append("[").append(quoted(hits.get(h).id())).append(", ")
            .append(hits.get(h).score()).append("]");
      }
      out.append("]");
    }
    out.append("}, \"peak_rss_kib\": ").append(peakRssKib()).append("}\n");
    System.out.print(out);
    System.out.flush();
  }

  /** An in-RAM single-segment index of the documents, and the docid -> id table. */
  private void build(List<String[]> documents, BM25Similarity similarity) throws IOException {
    ByteBuffersDirectory directory = new ByteBuffersDirectory();
    IndexWriterConfig config = new IndexWriterConfig(analyzer)
        .setSimilarity(similarity)
        .setOpenMode(IndexWriterConfig.OpenMode.CREATE)
        .setRAMBufferSizeMB(512)
        .setUseCompoundFile(false)
        .setMergeScheduler(new SerialMergeScheduler());
    FieldType contents = new FieldType();
    contents.setIndexOptions(IndexOptions.DOCS_AND_FREQS);
    contents.setTokenized(true);
    contents.setStored(false);
    contents.freeze();
    try (IndexWriter writer = new IndexWriter(directory, config)) {
      for (String[] document : documents) {
        Document fields = new Document();
        fields.add(new StoredField("id", document[0]));
        fields.add(new Field(FIELD, document[1], contents));
        writer.addDocument(fields);
      }
      writer.commit();
      writer.forceMerge(1);
      writer.commit();
    }
    DirectoryReader reader = DirectoryReader.open(directory);
    idOf = new String[reader.maxDoc()];
    for (LeafReaderContext leaf : reader.leaves()) {
      StoredFields stored = leaf.reader().storedFields();
      for (int doc = 0; doc < leaf.reader().maxDoc(); doc++) {
        idOf[leaf.docBase + doc] = stored.document(doc).get("id");
      }
    }
    searcher = new IndexSearcher(reader); // no executor: every search runs on this thread
    searcher.setSimilarity(similarity);
  }

  /** The best k documents for a query text, as (id, score), best first. */
  private List<Hit> rank(String text, int k) throws IOException {
    Query query = bagOfWords(text);
    if (query == null) return List.of();
    TopScoreDocCollector collector = TopScoreDocCollector.create(k, k);
    searcher.search(query, collector);
    ScoreDoc[] found = collector.topDocs().scoreDocs;
    List<Hit> hits = new ArrayList<>(found.length);
    for (ScoreDoc hit : found) hits.add(new Hit(idOf[hit.doc], hit.score));
    return hits;
  }

  /** Anserini's BagOfWordsQueryGenerator: one SHOULD clause per distinct term, boosted by its count. */
  private Query bagOfWords(String text) throws IOException {
    Map<String, Integer> counts = new TreeMap<>();
    try (TokenStream tokens = analyzer.tokenStream(FIELD, new StringReader(text))) {
      CharTermAttribute term = tokens.addAttribute(CharTermAttribute.class);
      tokens.reset();
      while (tokens.incrementToken()) counts.merge(term.toString(), 1, Integer::sum);
      tokens.end();
    }
    if (counts.isEmpty()) return null;
    BooleanQuery.Builder builder = new BooleanQuery.Builder();
    for (Map.Entry<String, Integer> entry : counts.entrySet()) {
      Query clause = new TermQuery(new Term(FIELD, entry.getKey()));
      if (entry.getValue() > 1) clause = new BoostQuery(clause, entry.getValue());
      builder.add(clause, BooleanClause.Occur.SHOULD);
    }
    return builder.build();
  }

  private static List<String[]> readTsv(String path) throws IOException {
    List<String[]> rows = new ArrayList<>();
    try (BufferedReader lines = Files.newBufferedReader(Paths.get(path), StandardCharsets.UTF_8)) {
      String line;
      while ((line = lines.readLine()) != null) {
        int tab = line.indexOf('\t');
        if (tab < 0) throw new IllegalArgumentException(path + ": a line without a tab: " + line);
        rows.add(new String[] {line.substring(0, tab), line.substring(tab + 1)});
      }
    }
    return rows;
  }

  /** VmHWM of /proc/self/status (this JVM's peak resident set, KiB), or -1 where there is none. */
  private static long peakRssKib() {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.UTF_8)) {
        if (line.startsWith("VmHWM:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  private static String required(Map<String, String> options, String name) {
    String value = options.get(name);
    if (value == null) throw new IllegalArgumentException("missing --" + name);
    return value;
  }

  private static double seconds(long started) {
    return (System.nanoTime() - started) / 1e9;
  }

  private static String quoted(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') out.append('\\').append(c);
      else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
      else out.append(c);
    }
    return out.append('"').toString();
  }
}
