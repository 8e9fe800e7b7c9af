// Written for keynobi's tests: two flavor dimensions, a top-level val and a gradle property.
plugins {
    id("com.android.application")
}

val BASE_ID = "com.example.app"
val appLabel = "Example ${BASE_ID}"

android {
    namespace = "com.example.app.ns"
    compileSdk = 35

    defaultConfig {
        applicationId = BASE_ID
        minSdk = 24
        targetSdk = providers.gradleProperty("TARGET_SDK").get().toInt()
        versionCode = project.property("VERSION_CODE").toString().toInt()
        versionName = "2.1.0" // "not this one"
    }

    buildTypes {
        getByName("debug") {
            applicationIdSuffix = ".debug"
        }
        release {
            isMinifyEnabled = true
        }
        register("staging") {
            applicationIdSuffix = "staging"
            isMinifyEnabled = false
        }
        create("benchmark") {
            applicationIdSuffix = computeSuffix()
        }
    }

    flavorDimensions += listOf("mode", "tier")
    productFlavors {
        create("full") {
            dimension = "mode"
        }
        create("demo") {
            dimension = "mode"
            applicationIdSuffix = ".demo"
        }
        create("paid") {
            dimension = "tier"
        }
        create("free") {
            dimension = "tier"
            applicationIdSuffix = ".free"
        }
    }
}

/* android { applicationId = "com.example.commented" } */
val notTheApp = """
    android { defaultConfig { applicationId = "com.example.in.string" } }
"""
