import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The README's "Use it as a library" is this sample: its pom.xml asks for the same BOM, modules, compiler and
 * exec plugins, its Java block is {@code Main.java}, and its run command is the one {@code Main} names. A user
 * who copies the README gets the project that {@link MainTest} runs.
 */
class ReadmeQuickStartTest {

    /** The module's directory: surefire runs the tests there. */
    private static final Path SAMPLE = Path.of("").toAbsolutePath();
    private static final Path ROOT = SAMPLE.resolve("../..").normalize();
    /** What a user's pom.xml holds besides what this sample must hold too: its own coordinates. */
    private static final Set<String> COORDINATES = Set.of("modelVersion", "groupId", "artifactId", "version");

    @Test
    void theReadmePomAsksForWhatThisSamplesPomAsksFor() throws Exception {
        Element readme = parse(block("xml"));
        Element sample = parse(Files.readString(SAMPLE.resolve("pom.xml")));
        for (Element section : children(readme)) {
            String name = section.getTagName();
            if (COORDINATES.contains(name)) {
                continue;
            }
            if (name.equals("properties")) {
                for (Element property : children(section)) {
                    assertEquals(normal(property), normal(child(child(sample, "properties"), property.getTagName())),
                            "the property " + property.getTagName());
                }
            } else {
                assertEquals(normal(section), normal(child(sample, name)), "the README's <" + name + ">");
            }
        }
        for (String name : List.of("properties", "dependencyManagement", "dependencies", "build")) {
            assertTrue(child(readme, name) != null, "the README's pom.xml has <" + name + ">");
        }
    }

    @Test
    void theReadmeBomIsThisVersionAndItsCompilerPluginTheOneTheProjectBuildsWith() throws Exception {
        Element readme = parse(block("xml"));
        Element bom = child(child(child(readme, "dependencyManagement"), "dependencies"), "dependency");
        String projectVersion = child(child(parse(Files.readString(SAMPLE.resolve("pom.xml"))), "parent"), "version")
                .getTextContent();
        assertEquals(projectVersion, child(bom, "version").getTextContent(), "the BOM's version");

        String compilerVersion = child(child(parse(Files.readString(ROOT.resolve("pom.xml"))), "properties"),
                "compiler-plugin.version").getTextContent();
        String readmeCompiler = null;
        for (Element plugin : children(child(child(readme, "build"), "plugins"))) {
            if (child(plugin, "artifactId").getTextContent().equals("maven-compiler-plugin")) {
                readmeCompiler = child(plugin, "version").getTextContent();
            }
        }
        assertEquals(compilerVersion, readmeCompiler, "the compiler plugin's version");
    }

    @Test
    void theReadmeJavaBlockIsMainAndItsRunCommandTheOneMainNames() throws Exception {
        String main = Files.readString(SAMPLE.resolve("src/main/java/Main.java"), StandardCharsets.UTF_8);
        assertEquals(main, block("java"), "the README's Java block is src/main/java/Main.java");
        assertTrue(main.contains("{@code mvn -q compile exec:java}"), main);
        assertTrue(block("bash").lines().anyMatch(line -> line.startsWith("mvn -q compile exec:java")),
                "the README runs it with mvn -q compile exec:java");
    }

    /** The first block of {@code language} in the README's "Use it as a library". */
    private static String block(String language) throws Exception {
        String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
        Matcher section = Pattern.compile("\n## Use it as a library\n(.*?)\n## ", Pattern.DOTALL).matcher(readme);
        assertTrue(section.find(), "the README has a section 'Use it as a library'");
        Matcher block = Pattern.compile("```" + language + "\n(.*?)```", Pattern.DOTALL).matcher(section.group(1));
        assertTrue(block.find(), "the section has a " + language + " block");
        return block.group(1);
    }

    private static Element parse(String xml) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8))).getDocumentElement();
    }

    private static List<Element> children(Element element) {
        List<Element> children = new ArrayList<>();
        for (Node node = element.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element child) {
                children.add(child);
            }
        }
        return children;
    }

    /** The first child named {@code name}, or null. */
    private static Element child(Element element, String name) {
        if (element == null) {
            return null;
        }
        return children(element).stream().filter(child -> child.getTagName().equals(name)).findFirst().orElse(null);
    }

    /** An element as nested names and trimmed texts, without comments and layout; "absent" for null. */
    private static String normal(Element element) {
        if (element == null) {
            return "absent";
        }
        List<Element> children = children(element);
        if (children.isEmpty()) {
            return element.getTagName() + "=" + element.getTextContent().trim();
        }
        StringBuilder text = new StringBuilder(element.getTagName()).append('{');
        for (Element child : children) {
            text.append(normal(child)).append(';');
        }
        return text.append('}').toString();
    }
}
